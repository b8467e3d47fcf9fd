/**
 * Shell commands the user types in the editor (`!cmd`, `!!cmd`). They go down the bash tool's
 * own path: the session's sandbox (or the host under `--sandbox off`), the filtered environment,
 * the same output cap with the full output spilled to a file. No approval gate: the user typed
 * the command, so the user already decided; the sandbox still confines it.
 */
import { type Agent, createUserMessage } from "@gyre/agent";
import type { TurnCheckpoints } from "./checkpoints/turn-checkpoints.js";
import type { BashSandbox } from "./sandbox/bash-sandbox.js";
import type { SessionManager } from "./session/session-manager.js";
import { formatBashOutput, launchOnHost, runCommand } from "./tools/run-command.js";
import { createSafeEnv } from "./tools/safe-env.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "./tools/truncate.js";

/** What one user shell command did. `output` is capped like the bash tool's result. */
export type UserShellResult = {
  command: string;
  output: string;
  /** null when it did not exit by itself (killed, cancelled, not started). */
  exitCode: number | null;
  cancelled: boolean;
  timedOut: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  durationMs: number;
  /** Set when the command could not run at all (sandbox unavailable); `output` then says why. */
  notRun?: boolean;
};

/** Where and how `!cmd` runs: the workspace, the environment bash gets, the session's sandbox. */
export type UserShellOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The session's bash sandbox; without one the command runs on the host (as the bash tool does). */
  sandbox?: BashSandbox;
  /** Default 600 s: the user watches it and Esc stops it sooner. */
  timeoutSeconds?: number;
  maxLines?: number;
  maxBytes?: number;
};

/** Runs a command for the user; `onOutput` gets the capped tail as it grows. Never rejects. */
export type UserShell = (
  command: string,
  options: { signal: AbortSignal; onOutput?: (tail: string) => void },
) => Promise<UserShellResult>;

/** Creates the runner of `!cmd` for one session. */
export function createUserShell(options: UserShellOptions): UserShell {
  const env = createSafeEnv(options.env);
  const limits = { maxLines: options.maxLines ?? DEFAULT_MAX_LINES, maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES };
  return async (command, { signal, onOutput }) => {
    const started = performance.now();
    const prepared = options.sandbox ? await options.sandbox.prepare() : { ok: true as const, launch: launchOnHost };
    if (!prepared.ok) return notRun(command, prepared.error, started);
    try {
      const outcome = await runCommand({
        launch: prepared.launch,
        command,
        cwd: options.cwd,
        shell: "bash",
        env,
        signal,
        timeoutMs: Math.round((options.timeoutSeconds ?? 600) * 1000),
        killGraceMs: 2000,
        tempDir: undefined,
        ...limits,
        updateIntervalMs: 100,
        onOutput,
      });
      const formatted = formatBashOutput(outcome, limits);
      return {
        command,
        output: formatted.text,
        exitCode: outcome.exitCode,
        cancelled: outcome.aborted,
        timedOut: outcome.timedOut,
        truncated: formatted.truncated,
        ...(outcome.output.fullOutputPath ? { fullOutputPath: outcome.output.fullOutputPath } : {}),
        durationMs: outcome.durationMs,
      };
    } catch (error) {
      return notRun(command, `The command could not be started: ${(error as Error).message}`, started);
    }
  };
}

function notRun(command: string, why: string, started: number): UserShellResult {
  return {
    command,
    output: why,
    exitCode: null,
    cancelled: false,
    timedOut: false,
    truncated: false,
    durationMs: Math.round(performance.now() - started),
    notRun: true,
  };
}

/** How a command's end reads, for the model and the screen: "exit 0", "cancelled", … */
export function describeShellEnd(result: UserShellResult): string {
  if (result.notRun) return "not run";
  if (result.cancelled) return "cancelled";
  if (result.timedOut) return "timed out";
  return result.exitCode === null ? "killed" : `exit ${result.exitCode}`;
}

/** The user message that carries a `!cmd` into the conversation: what ran, its output, how it ended. */
export function shellResultText(result: UserShellResult): string {
  return (
    `I ran this shell command in the workspace myself:\n$ ${result.command}\n\n` +
    `Output:\n\`\`\`\n${result.output}\n\`\`\`\n(${describeShellEnd(result)})`
  );
}

/** Whether a user message is a `!cmd` result (the chat draws it as a shell block, not a prompt). */
export function parseShellResultText(text: string): { command: string; output: string; end: string } | undefined {
  const match =
    /^I ran this shell command in the workspace myself:\n\$ (.*)\n\nOutput:\n```\n([\s\S]*)\n```\n\(([^)]*)\)$/.exec(
      text,
    );
  if (!match) return undefined;
  return { command: match[1] as string, output: match[2] as string, end: match[3] as string };
}

/**
 * Records a `!cmd`'s result: with `addToContext` as a user message the next prompt carries (in
 * the agent's context and the journal), else as a custom entry the model never sees.
 */
export function recordUserShell(
  result: UserShellResult,
  addToContext: boolean,
  target: { agent: Pick<Agent, "state" | "replaceMessages">; store: SessionManager },
): void {
  if (!addToContext) {
    target.store.appendCustom("user_shell", result);
    return;
  }
  const message = createUserMessage(shellResultText(result));
  target.agent.replaceMessages([...target.agent.state.messages, message]);
  target.store.appendMessage(message);
}

/**
 * Runs a `!cmd` with `shell` and records it (`recordUserShell`): between a checkpoint before and
 * one after when `turns` is given, so a rewind finds the files from before it. Never rejects
 * (the shell does not); the caller flushes the store.
 */
export async function runRecordedUserShell(
  shell: UserShell,
  command: string,
  options: { signal: AbortSignal; onOutput?: (tail: string) => void; addToContext: boolean },
  target: { agent: Pick<Agent, "state" | "replaceMessages">; store: SessionManager; turns?: TurnCheckpoints },
): Promise<UserShellResult> {
  const { signal, onOutput } = options;
  const run = () => shell(command, { signal, ...(onOutput ? { onOutput } : {}) });
  const record = (result: UserShellResult) => recordUserShell(result, options.addToContext, target);
  if (target.turns) return target.turns.aroundUserCommand(run, record);
  const result = await run();
  record(result);
  return result;
}
