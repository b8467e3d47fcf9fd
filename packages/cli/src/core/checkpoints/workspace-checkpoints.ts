/**
 * Checkpoints for one session's workspace, as the modes use them: hooks for the agent, and
 * rewind/preview against the session's current store. The shadow repository is opened on first
 * use (nothing on the start-up path); when git is missing it says so once and rewind covers the
 * conversation only.
 */
import type { SessionManager } from "../session/session-manager.js";
import { messageText } from "../session/switch-session.js";
import { parseShellResultText } from "../user-shell.js";
import { FileImageStore } from "./file-images.js";
import { imageSessionChanges, previewImageRewind, rewindFromImages } from "./image-rewind.js";
import { previewRewind, type RewindPlan, type RewindRestore, type RewindResult, rewind } from "./rewind.js";
import { probeGit } from "./run-git.js";
import { sessionPatch } from "./session-patch.js";
import { ShadowRepository } from "./shadow-repository.js";
import { TurnCheckpoints } from "./turn-checkpoints.js";
import { type CheckpointLimits, DEFAULT_CHECKPOINT_LIMITS, type SessionChanges } from "./types.js";

export type WorkspaceCheckpointsOptions = {
  gyreHome: string;
  workspace: string;
  limits?: Partial<CheckpointLimits>;
  gitBinary?: string;
};

/** What the owning session provides: its current store and a way to tell the user. */
export type CheckpointHost = { store: () => SessionManager; notice: (text: string) => void };

export type RewindRequest = { entryId: string; restore: RewindRestore; force?: boolean };

/** Bound to its session by `bind` (AgentSession does this); until then it records nothing. */
/** One place a rewind can go back to: before a user message, or undoing the last rewind. */
export type RewindTarget = { entryId: string; kind: "message" | "undo"; label: string; text?: string };

export class WorkspaceCheckpoints {
  readonly turns: TurnCheckpoints;
  private opened: Promise<ShadowRepository | undefined> | undefined;
  private host: CheckpointHost | undefined;
  private imageStore: FileImageStore | undefined;

  constructor(private readonly options: WorkspaceCheckpointsOptions) {
    this.turns = new TurnCheckpoints({
      repository: () => (this.host ? this.repository() : Promise.resolve(undefined)),
      session: () => this.store(),
      images: () => this.images(),
      onNotice: (text) => this.host?.notice(text),
    });
  }

  /** Connects the checkpoints to the session whose entries they write. */
  bind(host: CheckpointHost): void {
    this.host = host;
  }

  private store(): SessionManager {
    if (!this.host) throw new Error("Checkpoints are not bound to a session.");
    return this.host.store();
  }

  /** The shadow repository; undefined (after one notice) when git cannot run or the set-up fails. */
  repository(): Promise<ShadowRepository | undefined> {
    this.opened ??= this.open();
    return this.opened;
  }

  /** Without git: the saved copies of files write and edit replaced. */
  private async images(): Promise<FileImageStore | undefined> {
    if ((await this.repository()) !== undefined) return undefined;
    try {
      this.imageStore ??= new FileImageStore({
        gyreHome: this.options.gyreHome,
        workspace: this.options.workspace,
        maxFileBytes: this.options.limits?.maxFileBytes ?? DEFAULT_CHECKPOINT_LIMITS.maxFileBytes,
      });
      return this.imageStore;
    } catch {
      return undefined;
    }
  }

  private async open(): Promise<ShadowRepository | undefined> {
    const git = await probeGit(this.options.gitBinary);
    if (!git.ok) {
      this.host?.notice(
        `Workspace snapshots are off: ${git.reason}. Rewind restores files changed by edit and write from saved copies; changes made by bash are not covered.`,
      );
      return undefined;
    }
    try {
      return await ShadowRepository.open({
        gyreHome: this.options.gyreHome,
        workspace: this.options.workspace,
        ...(this.options.limits ? { limits: this.options.limits } : {}),
        ...(this.options.gitBinary ? { gitBinary: this.options.gitBinary } : {}),
      });
    } catch (error) {
      this.host?.notice(`Checkpoints are off: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** What a rewind would change, without changing anything. */
  async preview(request: RewindRequest): Promise<RewindPlan> {
    await this.turns.settled();
    const repository = await this.repository();
    const images = await this.images();
    if (repository === undefined && images !== undefined)
      return previewImageRewind({ ...request, session: this.store(), store: images });
    return previewRewind({ ...request, session: this.store(), repository });
  }

  /**
   * Rewinds the bound store (files and leaf). The caller reloads the conversation when it moved
   * (AgentSession.rewind does) and makes sure no run is in progress.
   */
  async rewind(request: RewindRequest): Promise<RewindResult> {
    await this.turns.settled();
    const repository = await this.repository();
    const images = await this.images();
    if (repository === undefined && images !== undefined)
      return rewindFromImages({ ...request, session: this.store(), store: images });
    return rewind({ ...request, session: this.store(), repository });
  }

  /**
   * What /rewind offers, newest first: each user message of the current branch with its first
   * line and full text, and undoing the last rewind (when there was one). The undo comes first
   * while that rewind is the latest thing that happened, last once a message was sent after it.
   */
  rewindTargets(): RewindTarget[] {
    const store = this.store();
    const entries = store.getEntries();
    let lastRewindAt = -1;
    entries.forEach((entry, at) => {
      if (
        (entry.type === "checkpoint" && entry.reason === "rewind") ||
        (entry.type === "file_images" && entry.reason === "rewind" && entry.phase === "before")
      )
        lastRewindAt = at;
    });
    const lastRewind = entries[lastRewindAt];
    const since = new Set(entries.slice(lastRewindAt + 1).map((entry) => entry.id));
    const messages: RewindTarget[] = [];
    let sentSince = false;
    for (const entry of store.getBranch().reverse()) {
      if (entry.type !== "message" || entry.message.role !== "user") continue;
      // A `!cmd` is listed (and put back in the editor) as the user typed it, not as the model reads it.
      const shell = parseShellResultText(messageText(entry.message));
      const text = shell ? `!${shell.command}` : messageText(entry.message);
      messages.push({
        entryId: entry.id,
        kind: "message",
        label: text.split("\n")[0]?.slice(0, 80) || "(empty)",
        text,
      });
      if (lastRewind && since.has(entry.id)) sentSince = true;
    }
    if (!lastRewind) return messages;
    const undo: RewindTarget = { entryId: lastRewind.id, kind: "undo", label: "Undo the last rewind" };
    return sentSince ? [...messages, undo] : [undo, ...messages];
  }

  /**
   * What changed in the workspace since this session's first checkpoint (`/diff`): `added`
   * means the file is new since then. `notice` says why there is nothing to compare; `caveat`,
   * what the list may miss (without git: changes made by bash).
   */
  async sessionChanges(): Promise<SessionChanges> {
    await this.turns.settled();
    const repository = await this.repository();
    const images = await this.images();
    if (repository === undefined && images !== undefined) {
      const changes = await imageSessionChanges(this.store(), images);
      if (changes.length === 0)
        return { changes, notice: "This session has not changed any files with write or edit yet." };
      return { changes, caveat: "git is not available: only what write and edit changed is listed, not bash." };
    }
    if (repository === undefined) return { changes: [], notice: "Checkpoints are off (git is not available)." };
    const first = this.store()
      .getEntries()
      .find((entry) => entry.type === "checkpoint");
    if (first?.type !== "checkpoint") return { changes: [], notice: "This session has not changed any files yet." };
    if (!(await repository.hasTree(first.ref)))
      return { changes: [], notice: "The session's first checkpoint was pruned to stay under the disk cap." };
    const now = await repository.snapshot();
    const differences = await repository.diff(first.ref, now.tree);
    const patch = await sessionPatch(repository, first.ref, now.tree);
    return {
      changes: differences.map(({ path, status }) => ({ path, status })),
      against: { entryId: first.id, timestamp: first.timestamp, tree: first.ref },
      ...patch,
    };
  }
}
