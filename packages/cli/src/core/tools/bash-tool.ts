/**
 * The bash tool: runs `bash -c COMMAND` in the workspace root, in its own process group, with
 * merged stdout+stderr streamed to `onUpdate`, a timeout, group-wide termination on timeout or
 * abort, and output bounded in memory (tail kept, full output spilled to a 0600 temp file).
 * Not confined by the path policy: confined by the OS sandbox (`sandbox`) instead, and never run
 * unsandboxed unless the sandbox is off or a gate approved `escalate`.
 */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import type { BashSandbox } from "../sandbox/bash-sandbox.js";
import { redactUrlPasswords } from "../session/redact-secrets.js";
import type { BackgroundShells } from "./background-shells.js";
import { launchInBackgroundOnHost } from "./background-shells-host.js";
import { BASH_OUTPUT_DIR, ensureBashOutputDir } from "./bash-output-dir.js";
import { formatBashOutput, type Launcher, launchOnHost, runCommand } from "./run-command.js";
import { createSafeEnv, pickEnv } from "./safe-env.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "./truncate.js";

const bashParameters = Type.Object({
  command: Type.String({ description: "The bash command to run in the workspace root." }),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Timeout in seconds (default 120)." })),
  escalate: Type.Optional(
    Type.Boolean({
      description:
        "Ask the user to run this command outside the sandbox (writes outside the workspace, network). Only when the sandbox refused it.",
    }),
  ),
  justification: Type.Optional(
    Type.String({ description: "With escalate: one sentence the user reads to decide, saying why it is needed." }),
  ),
  run_in_background: Type.Optional(
    Type.Boolean({
      description:
        "Start the command and return at once with a shell id, for servers, watchers and long builds; it keeps " +
        "running across turns until it exits, kill_shell stops it, or the session ends. Read its output with bash_output.",
    }),
  ),
});

export type BashToolDetails = {
  exitCode: number | null;
  durationMs: number;
  truncated: boolean;
  /** The full output, when it was too long to return. */
  fullOutputPath?: string;
  timedOut: boolean;
  aborted: boolean;
  /** The id of the background shell a `run_in_background` call started. */
  shellId?: string;
};

export type BashToolOptions = {
  cwd: string;
  /** The shell binary. Default "bash" from PATH. */
  shell?: string;
  /** Base environment before secret filtering. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** More variable names bash inherits from `env` beyond the allowlist (`sandbox.passEnv`). */
  passEnv?: readonly string[];
  defaultTimeoutSeconds?: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Where full-output files go. Default a private folder the sandbox and the read tool can see (`bash-output-dir.ts`). */
  tempDir?: string;
  maxLines?: number;
  maxBytes?: number;
  /** Minimum time between `onUpdate` calls. Default 100 ms. */
  updateIntervalMs?: number;
  /** Where commands run. Default: on the host, unconfined (tests, embedders that sandbox elsewhere). */
  sandbox?: BashSandbox;
  /**
   * "gated": a gate before execution approved every call that reaches the tool, so `escalate`
   * runs on the host. Default "refused": no gate is known, so `escalate` is an error.
   */
  escalation?: "gated" | "refused";
  /** Where `run_in_background` commands are kept; without it, `run_in_background` is an error. */
  shells?: BackgroundShells;
};

/** Creates the bash tool. A non-zero exit, a timeout or an abort is thrown with the output's tail. */
export function createBashTool(options: BashToolOptions): AgentTool<typeof bashParameters, BashToolDetails> {
  const defaultTimeout = options.defaultTimeoutSeconds ?? 120;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const env = createSafeEnv(options.env ?? process.env, pickEnv(options.env ?? process.env, options.passEnv ?? []));

  return {
    name: "bash",
    label: "Bash",
    description:
      `Run a bash command in the workspace root (stdin is empty). stdout and stderr are merged; only the last ${maxLines} lines ` +
      `or ${formatSize(maxBytes)} are returned, the full output is saved to a file whose path is given. ` +
      `Times out after ${defaultTimeout} s unless you pass timeout (seconds). ` +
      (options.shells
        ? "For dev servers, watchers and anything that runs longer, pass run_in_background: true (not `&` or nohup) " +
          "and check on it with bash_output; it runs in the same place as other commands. "
        : "Start long-running servers in the background with output redirected to a file. ") +
      "A non-zero exit code is reported as an error." +
      (options.sandbox && options.sandbox.mode() !== "off"
        ? " Commands run in a sandbox: only the workspace and a private /tmp are writable, .git (so git commit, add " +
          "and checkout fail), .gyre/ and .mcp.json stay read-only, no new .git may be made in the workspace, and the " +
          "network is off unless the user allowed it. When the sandbox refuses something " +
          "the task needs, call again with escalate: true and a justification; the user decides."
        : ""),
    parameters: bashParameters,
    async execute(args, { signal, onUpdate }) {
      signal.throwIfAborted();
      const timeoutSeconds = args.timeout ?? defaultTimeout;
      const where = await chooseLauncher(args.escalate === true, options);
      // A folder that cannot be made only costs the full-output file; the result then says so.
      const tempDir = options.tempDir ?? (await ensureBashOutputDir().catch(() => BASH_OUTPUT_DIR));
      if (args.run_in_background === true) return startInBackground(args.command, where, tempDir, env, options);
      const outcome = await runCommand({
        launch: where.launch,
        command: args.command,
        cwd: options.cwd,
        shell: options.shell ?? "bash",
        env,
        signal,
        timeoutMs: Math.round(timeoutSeconds * 1000),
        killGraceMs: options.killGraceMs ?? 2000,
        tempDir,
        maxLines,
        maxBytes,
        updateIntervalMs: options.updateIntervalMs ?? 100,
        onOutput: onUpdate === undefined ? undefined : (text) => onUpdate({ content: [{ type: "text", text }] }),
      });
      const formatted = formatBashOutput(outcome, { maxLines, maxBytes });
      // A connection string's password is never needed to do the task; it would be kept in the session.
      formatted.text = redactUrlPasswords(formatted.text);
      const hints = [where.explain(outcome.output.tail), await where.afterCommand?.()];
      for (const hint of hints) if (hint !== undefined) formatted.text += `\n\n${hint}`;
      const details: BashToolDetails = {
        exitCode: outcome.exitCode,
        durationMs: outcome.durationMs,
        truncated: formatted.truncated,
        fullOutputPath: outcome.output.fullOutputPath,
        timedOut: outcome.timedOut,
        aborted: outcome.aborted,
      };
      const ended =
        outcome.termination === undefined ? "" : `its process group was terminated (${outcome.termination.signal})`;
      if (outcome.timedOut) {
        throw new Error(
          `${formatted.text}\n\nCommand timed out after ${timeoutSeconds} s; ${ended}. ` +
            "Pass a larger timeout, or run it in the background with output redirected to a file and check on it later.",
        );
      }
      if (outcome.aborted) throw new Error(`${formatted.text}\n\nCommand aborted by the user; ${ended}.`);
      if (outcome.exitCode !== 0) {
        const how =
          outcome.exitCode === null
            ? `was killed by ${outcome.exitSignal ?? "a signal"}`
            : `exited with code ${outcome.exitCode}`;
        throw new Error(`${formatted.text}\n\nCommand ${how}.`);
      }
      return { content: [{ type: "text", text: formatted.text }], details };
    },
  };
}

/** Starts `command` as a background shell where foreground commands run; returns its id at once. */
function startInBackground(
  command: string,
  where: Awaited<ReturnType<typeof chooseLauncher>>,
  tempDir: string,
  env: NodeJS.ProcessEnv,
  options: BashToolOptions,
): { content: { type: "text"; text: string }[]; details: BashToolDetails } {
  const shells = options.shells;
  if (!shells) throw new Error("run_in_background is not available here; run the command in the foreground.");
  // On the host a guard leads the group so that it dies with gyre; the sandbox ends its own processes.
  const launch = where.launch === launchOnHost ? launchInBackgroundOnHost : where.launch;
  const launched = launch({ shell: options.shell ?? "bash", command, cwd: options.cwd, env });
  const info = shells.start({
    launched,
    command,
    tempDir,
    ...(where.afterCommand ? { afterExit: where.afterCommand } : {}),
  });
  const text =
    `Started background shell ${info.id}: ${redactUrlPasswords(command)}\n` +
    `Read its output with bash_output {"id": "${info.id}"}; stop it with kill_shell {"id": "${info.id}"}.`;
  return {
    content: [{ type: "text", text }],
    details: { exitCode: null, durationMs: 0, truncated: false, timedOut: false, aborted: false, shellId: info.id },
  };
}

async function chooseLauncher(
  escalate: boolean,
  options: BashToolOptions,
): Promise<{
  launch: Launcher;
  explain: (output: string) => string | undefined;
  afterCommand?: () => Promise<string | undefined>;
}> {
  const unexplained = { launch: launchOnHost, explain: () => undefined };
  if (escalate) {
    if (options.escalation !== "gated") {
      throw new Error(
        "escalate is not available in this run (no approval gate); run the command inside the sandbox or ask the user to run it.",
      );
    }
    return unexplained;
  }
  if (!options.sandbox) return unexplained;
  const prepared = await options.sandbox.prepare();
  if (!prepared.ok) throw new Error(prepared.error);
  return prepared;
}
