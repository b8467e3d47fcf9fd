/**
 * One run of `gyre eval`: a fresh copy of the task's folder (or clone of its git source), the
 * task's prompt as a headless gyre request of the variant's build and model (sandboxed as any
 * run: bash under bubblewrap, workspace-write), then the task's check command in that copy.
 * The run's session file is kept in the output folder (for `gyre replay`); the copy is removed.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { EvalRunRecord } from "./eval-report.js";
import type { EvalTask, EvalVariant } from "./eval-tasks.js";
import { runGyreChild } from "./run-gyre-child.js";
import { freshWorkspace, sessionHeaderLine } from "./workspace-copy.js";

export type EvalRunOptions = {
  task: EvalTask;
  variant: EvalVariant;
  repeat: number;
  outDir: string;
  env: NodeJS.ProcessEnv;
  /** Flags every run gets (`--faux-script`, `--sandbox`…). */
  extraArgs: string[];
  timeoutMs: number;
};

/** The harness's own error results (packages/agent/src/tool-error-texts.ts), by kind. */
const HARNESS_FAULTS: [kind: string, pattern: RegExp][] = [
  ["tool-call parse failure", /are not valid JSON, so it was not run/],
  ["unknown tool", /^Tool "[^"]*" does not exist/],
  ["invalid arguments", /^Invalid arguments for tool/],
  ["truncated call", /was not run: the response hit the output-token limit/],
];

/** Runs the task once under the variant; a crash or timeout is a failed run, not an exception. */
export async function runEvalTask(options: EvalRunOptions): Promise<EvalRunRecord> {
  const { task, variant } = options;
  const name = `${safe(task.id)}--${safe(variant.label)}--${options.repeat}`;
  const sessionFile = nodePath.join(options.outDir, "sessions", `${name}.jsonl`);
  await mkdir(nodePath.dirname(sessionFile), { recursive: true });
  const workspace = await freshWorkspace(task.source, "gyre-eval-");
  try {
    await writeFile(sessionFile, `${sessionHeaderLine(workspace.cwd)}\n`, { mode: 0o600 });
    const outcome = await runGyreChild({
      gyreBin: variant.gyreBin,
      cwd: workspace.cwd,
      sessionFile,
      args: [...variantArgs(options), ...options.extraArgs],
      prompt: task.prompt,
      env: options.env,
      timeoutMs: options.timeoutMs,
    });
    const check = await runCheck(task.check, workspace.cwd, options.env);
    const harnessErrors = await harnessFaultsIn(sessionFile);
    const result = outcome.result;
    if (result === undefined) harnessErrors[outcome.timedOut ? "timeout" : "crash"] = 1;
    const usage = (result?.usage ?? {}) as { totalTokens?: number };
    return {
      task: task.id,
      variant: variant.label,
      repeat: options.repeat,
      passed: check.code === 0,
      reason: result
        ? String(result.reason)
        : outcome.timedOut
          ? "timeout"
          : `crashed: ${outcome.stderrTail.split("\n").at(-1) ?? ""}`,
      cost: Number(result?.cost ?? 0),
      tokens: Number(usage.totalTokens ?? 0),
      turns: Number(result?.turns ?? 0),
      wallMs: outcome.wallMs,
      harnessErrors,
      ...(check.code === 0 ? {} : { checkOutput: check.output }),
      sessionFile,
      ...("folder" in task.source
        ? { replay: `gyre replay ${JSON.stringify(sessionFile)} --workspace ${JSON.stringify(task.source.folder)}` }
        : {}),
    };
  } finally {
    await workspace.cleanup();
  }
}

function variantArgs(options: EvalRunOptions): string[] {
  const { model } = options.variant;
  return [
    ...(model.provider ? ["--provider", model.provider] : []),
    ...(model.model ? ["--model", model.model] : []),
    ...(options.task.tools === undefined
      ? []
      : options.task.tools.length === 0
        ? ["--no-tools"]
        : ["--tools", options.task.tools.join(",")]),
    ...(options.task.maxTurns === undefined ? [] : ["--max-turns", String(options.task.maxTurns)]),
  ];
}

function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
}

/** Counts the harness's error results in the run's session. */
async function harnessFaultsIn(sessionFile: string): Promise<Record<string, number>> {
  const faults: Record<string, number> = {};
  const lines = (await readFile(sessionFile, "utf8").catch(() => "")).split("\n");
  for (const line of lines) {
    if (!line.includes('"toolResult"')) continue;
    let entry: { message?: { role?: string; isError?: boolean; content?: { type: string; text?: string }[] } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.message?.role !== "toolResult" || entry.message.isError !== true) continue;
    const text = (entry.message.content ?? []).map((block) => block.text ?? "").join("");
    const kind = HARNESS_FAULTS.find(([, pattern]) => pattern.test(text))?.[0];
    if (kind !== undefined) faults[kind] = (faults[kind] ?? 0) + 1;
  }
  return faults;
}

const CHECK_TIMEOUT_MS = 300_000;

/** Runs the check with bash in the run's folder; its exit code and the tail of its output. */
function runCheck(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-2000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), CHECK_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: String(error) });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.trim() });
    });
  });
}
