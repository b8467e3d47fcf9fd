/**
 * Checkpoints for one session's workspace, as the modes use them: hooks for the agent, and
 * rewind/preview against the session's current store. The shadow repository is opened on first
 * use (nothing on the start-up path); when git is missing it says so once and rewind covers the
 * conversation only.
 */
import type { AgentSession } from "../agent-session.js";
import type { SessionManager } from "../session/session-manager.js";
import { previewRewind, type RewindPlan, type RewindRestore, type RewindResult, rewind } from "./rewind.js";
import { probeGit } from "./run-git.js";
import { ShadowRepository } from "./shadow-repository.js";
import { TurnCheckpoints } from "./turn-checkpoints.js";
import type { CheckpointLimits, FileChange } from "./types.js";

export type WorkspaceCheckpointsOptions = {
  gyreHome: string;
  workspace: string;
  /** The session entries go to; read at every use, so a switched store is followed. */
  store: () => SessionManager;
  limits?: Partial<CheckpointLimits>;
  gitBinary?: string;
  onNotice?: (text: string) => void;
};

export type RewindRequest = { entryId: string; restore: RewindRestore; force?: boolean };

export class WorkspaceCheckpoints {
  readonly turns: TurnCheckpoints;
  private opened: Promise<ShadowRepository | undefined> | undefined;

  constructor(private readonly options: WorkspaceCheckpointsOptions) {
    this.turns = new TurnCheckpoints({
      repository: () => this.repository(),
      session: options.store,
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    });
  }

  /** The shadow repository; undefined (after one notice) when git cannot run or the set-up fails. */
  repository(): Promise<ShadowRepository | undefined> {
    this.opened ??= this.open();
    return this.opened;
  }

  private async open(): Promise<ShadowRepository | undefined> {
    const git = await probeGit(this.options.gitBinary);
    if (!git.ok) {
      this.options.onNotice?.(`Checkpoints are off: ${git.reason}. Rewind can restore the conversation only.`);
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
      this.options.onNotice?.(`Checkpoints are off: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** What a rewind would change, without changing anything. */
  async preview(request: RewindRequest): Promise<RewindPlan> {
    await this.turns.settled();
    return previewRewind({ ...request, session: this.options.store(), repository: await this.repository() });
  }

  /**
   * Rewinds the store's session and, when the conversation moved, reloads it into `session`.
   * Throws when the agent is running.
   */
  async rewind(request: RewindRequest, session?: AgentSession): Promise<RewindResult> {
    if (session?.isRunning) throw new Error("The agent is running; abort first to rewind.");
    await this.turns.settled();
    const store = this.options.store();
    const result = await rewind({ ...request, session: store, repository: await this.repository() });
    if (session && request.restore !== "code") await session.switchStore(store, { closePrevious: false });
    return result;
  }

  /**
   * What changed in the workspace since this session's first checkpoint (`/diff`): `added`
   * means the file is new since then. `notice` says why there is nothing to compare.
   */
  async sessionChanges(): Promise<{ changes: FileChange[]; notice?: string }> {
    await this.turns.settled();
    const repository = await this.repository();
    if (repository === undefined) return { changes: [], notice: "Checkpoints are off (git is not available)." };
    const first = this.options
      .store()
      .getEntries()
      .find((entry) => entry.type === "checkpoint");
    if (first?.type !== "checkpoint") return { changes: [], notice: "This session has not changed any files yet." };
    if (!(await repository.hasTree(first.ref)))
      return { changes: [], notice: "The session's first checkpoint was pruned to stay under the disk cap." };
    const now = await repository.snapshot();
    const differences = await repository.diff(first.ref, now.tree);
    return { changes: differences.map(({ path, status }) => ({ path, status })) };
  }

  /** Hooks the turn checkpoints into a session's agent (after the session's own listener). */
  attach(session: AgentSession): () => void {
    return session.agent.subscribe((event) => this.turns.handleEvent(event));
  }
}
