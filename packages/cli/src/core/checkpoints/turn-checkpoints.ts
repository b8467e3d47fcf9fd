/**
 * Takes checkpoints as a run goes: one snapshot before the first tool of a run that can change
 * files (made durable in the session before the tool starts), and one when that run ends, so a
 * rewind can tell gyre's changes from changes made outside it. Read-only tools never snapshot.
 */
import type { AgentEvent, BeforeToolCallInput, BeforeToolCallResult } from "@gyre/agent";
import { describeError } from "@gyre/ai";
import type { SessionManager } from "../session/session-manager.js";
import type { CheckpointReason } from "../session/types.js";
import { type FileImageStore, IMAGED_TOOL_NAMES, workspaceRelativePath } from "./file-images.js";
import type { ShadowRepository } from "./shadow-repository.js";
import type { Snapshot } from "./types.js";

/** Built-in tools that only read, also when a caller's tool object does not say so. */
export const READ_ONLY_TOOL_NAMES: readonly string[] = ["read", "ls", "grep", "find"];

/**
 * Whether a call may change files: not when its tool declares `readOnly` (built-in readers, an
 * MCP tool with `readOnlyHint`, an extension tool that says so); every other tool may.
 */
export function mayChangeFiles(input: Pick<BeforeToolCallInput, "toolCall" | "context">): boolean {
  const { name } = input.toolCall;
  if (READ_ONLY_TOOL_NAMES.includes(name)) return false;
  return input.context.tools?.find((tool) => tool.name === name)?.readOnly !== true;
}

/** Most paths one checkpoint entry lists; the snapshot itself has them all. */
const MAX_LISTED_FILES = 200;

export type TurnCheckpointsOptions = {
  /** The workspace's shadow repository, opened on first use; undefined when git is unavailable. */
  repository: () => Promise<ShadowRepository | undefined>;
  /** Where checkpoint entries are appended (the current leaf). */
  session: () => SessionManager;
  /**
   * Where write and edit save the files they replace when there is no shadow repository (git
   * missing); undefined: nothing is saved and rewind covers the conversation only.
   */
  images?: () => Promise<FileImageStore | undefined>;
  /** Whether a call can change files. Default: `mayChangeFiles` (the tool's `readOnly` flag). */
  mayChangeFiles?: (input: BeforeToolCallInput) => boolean;
  /** Told once per problem (a failed snapshot, a skipped large file); never blocks a tool. */
  onNotice?: (text: string) => void;
};

/**
 * Appends a snapshot of the workspace to the session as a checkpoint entry (the caller flushes).
 * `paths`: only these changed since the last snapshot (see ShadowRepository.snapshot). Returns
 * the entry id.
 */
export async function recordCheckpoint(
  repository: ShadowRepository,
  session: SessionManager,
  reason: CheckpointReason,
  paths?: readonly string[],
): Promise<{ entryId: string; snapshot: Snapshot }> {
  const snapshot = await repository.snapshot(paths ? { paths } : {});
  return { entryId: appendSnapshot(repository, session, snapshot, reason), snapshot };
}

/** Appends an already taken snapshot as a checkpoint entry; returns the entry id. */
function appendSnapshot(
  repository: ShadowRepository,
  session: SessionManager,
  snapshot: Snapshot,
  reason: CheckpointReason,
): string {
  return session.appendCheckpoint({
    ref: snapshot.tree,
    files: snapshot.changed.slice(0, MAX_LISTED_FILES),
    reason,
    workspace: repository.location.workTree,
    ...(snapshot.skipped.length > 0 ? { skipped: snapshot.skipped } : {}),
  });
}

/** The checkpoint hooks of one agent: wire `beforeToolCall` and `handleEvent` into it. */
export class TurnCheckpoints {
  /** The snapshot of the current run, once its first file-changing tool asked for it. */
  private taken: Promise<unknown> | undefined;
  private readonly noticed = new Set<string>();
  /**
   * The workspace paths this run's file-changing calls named, while all were write or edit;
   * "all" once any other tool (bash, MCP, …) ran, since only a full scan sees what that changed.
   */
  private touched: Set<string> | "all" = new Set();

  constructor(private readonly options: TurnCheckpointsOptions) {}

  /**
   * Snapshots before the first file-changing call of the run; calls in the same batch wait for
   * that one snapshot. Never blocks a call: a failed snapshot is reported and the tool runs.
   */
  beforeToolCall = async (input: BeforeToolCallInput): Promise<BeforeToolCallResult | undefined> => {
    if (!(this.options.mayChangeFiles ?? mayChangeFiles)(input)) return undefined;
    const repository = await this.options.repository();
    if (repository === undefined) {
      await this.saveImage(input);
      return undefined;
    }
    this.taken ??= this.take("turn");
    await this.taken;
    await this.noteTouched(input, repository.location.workTree);
    return undefined;
  };

  private async noteTouched(input: BeforeToolCallInput, workspace: string): Promise<void> {
    if (this.touched === "all") return;
    const path = input.args.path;
    if (!IMAGED_TOOL_NAMES.includes(input.toolCall.name) || typeof path !== "string") {
      this.touched = "all";
      return;
    }
    const inside = await workspaceRelativePath(workspace, path).catch(() => null);
    // null: unresolvable, so scan everything; undefined: outside the workspace, nothing to record.
    if (inside === null) this.touched = "all";
    else if (inside !== undefined) this.touched.add(inside);
  }

  /** Calls whose pre-image was saved, by tool-call id: their post-image is saved when they end. */
  private readonly imaged = new Map<string, { store: FileImageStore; path: string }>();

  /** Without git: the pre-image of a write or edit's file, durable before the tool runs. */
  private async saveImage(input: BeforeToolCallInput): Promise<void> {
    const store = await this.options.images?.();
    if (store === undefined) return;
    const { name, id } = input.toolCall;
    if (!IMAGED_TOOL_NAMES.includes(name)) {
      this.notify(
        "uncovered",
        `git is not available, so ${name} changes cannot be rewound; edit and write still can (gyre keeps copies of the files they replace).`,
      );
      return;
    }
    try {
      const path = typeof input.args.path === "string" ? await store.relativePath(input.args.path) : undefined;
      if (path === undefined) return;
      const image = await store.capture(path);
      const session = this.options.session();
      session.appendFileImages({
        phase: "before",
        reason: "tool",
        workspace: store.workspace,
        toolCallId: id,
        files: [image],
      });
      await session.flush();
      this.imaged.set(id, { store, path });
    } catch (error) {
      this.notify("image", `Could not save a copy of the file for rewind: ${describeError(error)}.`);
    }
  }

  private async saveAfterImage(toolCallId: string): Promise<void> {
    const pending = this.imaged.get(toolCallId);
    if (pending === undefined) return;
    this.imaged.delete(toolCallId);
    try {
      const image = await pending.store.capture(pending.path);
      this.options.session().appendFileImages({
        phase: "after",
        reason: "tool",
        workspace: pending.store.workspace,
        toolCallId,
        files: [image],
      });
    } catch (error) {
      this.notify("image", `Could not save a copy of the file for rewind: ${describeError(error)}.`);
    }
  }

  /**
   * Checkpoints around a command the user runs from the editor (`!cmd`): the workspace is
   * snapshotted before `work`, and recorded after `record` appended the command's own entry, so
   * a rewind to that entry finds the state from before the command; then the end state follows.
   * A failed snapshot is reported and the command still runs.
   */
  async aroundUserCommand<T>(work: () => Promise<T>, record: (result: T) => void): Promise<T> {
    const before = await this.snapshotBefore();
    const result = await work();
    record(result);
    if (before) {
      const session = this.options.session();
      appendSnapshot(before.repository, session, before.snapshot, "turn");
      await this.take("turn_end");
    }
    return result;
  }

  private async snapshotBefore(): Promise<{ repository: ShadowRepository; snapshot: Snapshot } | undefined> {
    try {
      const repository = await this.options.repository();
      return repository && { repository, snapshot: await repository.snapshot() };
    } catch (error) {
      this.notify("failed", `Could not take a checkpoint: ${(error as Error).message}. Rewind may miss this turn.`);
      return undefined;
    }
  }

  private ending: Promise<void> = Promise.resolve();

  /** Resolves once the end-of-run checkpoint (if one is being taken) is recorded. */
  settled(): Promise<void> {
    return this.ending;
  }

  /** Resets at each run's start; records the end state of a run that took a checkpoint. */
  handleEvent = (event: AgentEvent): Promise<void> => {
    if (event.type === "tool_execution_end") return this.saveAfterImage(event.toolCallId);
    if (event.type === "agent_end") this.ending = this.ending.then(() => this.endRun(event));
    else if (event.type === "agent_start") {
      this.taken = undefined;
      this.touched = new Set();
    }
    return event.type === "agent_end" ? this.ending : Promise.resolve();
  };

  private endRun = async (event: AgentEvent): Promise<void> => {
    if (event.type !== "agent_end" || this.taken === undefined) return;
    this.taken = undefined;
    const touched = this.touched;
    this.touched = new Set();
    // A run of only write and edit changed nothing but the files they named.
    const repository = await this.take("turn_end", touched === "all" ? undefined : [...touched]);
    const dropped = (await repository?.prune().catch(() => [])) ?? [];
    if (dropped.length > 0)
      this.notify(`pruned:${dropped.length}`, `Pruned ${dropped.length} old checkpoint(s) to stay under the disk cap.`);
  };

  /** Returns the repository when the snapshot was recorded. */
  private async take(reason: CheckpointReason, paths?: readonly string[]): Promise<ShadowRepository | undefined> {
    try {
      const repository = await this.options.repository();
      if (repository === undefined) return undefined;
      const session = this.options.session();
      const { snapshot } = await recordCheckpoint(repository, session, reason, paths);
      // Durable before the tool starts, so a crash never leaves a change without its checkpoint.
      await session
        .flush()
        .catch((error: unknown) => this.notify("flush", `could not write the session file: ${describeError(error)}`));
      for (const file of snapshot.skipped)
        this.notify(
          `skip:${file.path}`,
          `Checkpoint skipped ${file.path} (${describeSkip(file.reason, file.bytes)}); rewind will leave it as it is.`,
        );
      return repository;
    } catch (error) {
      this.notify("failed", `Could not take a checkpoint: ${(error as Error).message}. Rewind may miss this turn.`);
      return undefined;
    }
  }

  private notify(key: string, text: string): void {
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    this.options.onNotice?.(text);
  }
}

function describeSkip(reason: string, bytes: number): string {
  const size = `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (reason === "file_too_large") return `${size}, over the per-file limit`;
  if (reason === "snapshot_too_large") return `${size}, over the per-snapshot limit`;
  return "a nested git repository";
}
