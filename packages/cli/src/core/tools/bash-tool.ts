/**
 * The bash tool: runs `bash -c COMMAND` in the workspace root, in its own process group, with
 * merged stdout+stderr streamed to `onUpdate`, a timeout, group-wide termination on timeout or
 * abort, and output bounded in memory (tail kept, full output spilled to a 0600 temp file).
 * Not confined by the path policy.
 */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { formatBashOutput, runCommand } from "./run-command.js";
import { createSafeEnv } from "./safe-env.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "./truncate.js";

const bashParameters = Type.Object({
  command: Type.String({ description: "The bash command to run in the workspace root." }),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Timeout in seconds (default 120)." })),
});

export type BashToolDetails = {
  exitCode: number | null;
  durationMs: number;
  truncated: boolean;
  /** The full output, when it was too long to return. */
  fullOutputPath?: string;
  timedOut: boolean;
  aborted: boolean;
};

export type BashToolOptions = {
  cwd: string;
  /** The shell binary. Default "bash" from PATH. */
  shell?: string;
  /** Base environment before secret filtering. Default process.env. */
  env?: NodeJS.ProcessEnv;
  defaultTimeoutSeconds?: number;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Where full-output files go. Default the OS temp directory. */
  tempDir?: string;
  maxLines?: number;
  maxBytes?: number;
  /** Minimum time between `onUpdate` calls. Default 100 ms. */
  updateIntervalMs?: number;
};

/** Creates the bash tool. A non-zero exit, a timeout or an abort is thrown with the output's tail. */
export function createBashTool(options: BashToolOptions): AgentTool<typeof bashParameters, BashToolDetails> {
  const defaultTimeout = options.defaultTimeoutSeconds ?? 120;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const env = createSafeEnv(options.env ?? process.env);

  return {
    name: "bash",
    label: "Bash",
    description:
      `Run a bash command in the workspace root (stdin is empty). stdout and stderr are merged; only the last ${maxLines} lines ` +
      `or ${formatSize(maxBytes)} are returned, the full output is saved to a file whose path is given. ` +
      `Times out after ${defaultTimeout} s unless you pass timeout (seconds); start long-running servers in the background ` +
      "with output redirected to a file. A non-zero exit code is reported as an error.",
    parameters: bashParameters,
    async execute(args, { signal, onUpdate }) {
      signal.throwIfAborted();
      const timeoutSeconds = args.timeout ?? defaultTimeout;
      const outcome = await runCommand({
        command: args.command,
        cwd: options.cwd,
        shell: options.shell ?? "bash",
        env,
        signal,
        timeoutMs: Math.round(timeoutSeconds * 1000),
        killGraceMs: options.killGraceMs ?? 2000,
        tempDir: options.tempDir,
        maxLines,
        maxBytes,
        updateIntervalMs: options.updateIntervalMs ?? 100,
        onOutput: onUpdate === undefined ? undefined : (text) => onUpdate({ content: [{ type: "text", text }] }),
      });
      const formatted = formatBashOutput(outcome, { maxLines, maxBytes });
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
