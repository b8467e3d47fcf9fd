/**
 * One run of `gyre eval`: a fresh copy of the task's folder (or clone of its git source), the
 * task's prompt as a headless gyre request of the variant's build and model (sandboxed as any
 * run: bash under bubblewrap, workspace-write), then the task's check command in that copy.
 * The run's session file is kept in the output folder (for `gyre replay`); the copy is removed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { EvalRunRecord } from "./eval-report.js";
import type { EvalTask, EvalVariant } from "./eval-tasks.js";
import { type CheckOutcome, runCheck } from "./run-check.js";
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

/** The file name (without folder) of a run's session: task, variant and repeat, made safe. */
export function evalRunName(task: EvalTask, variant: EvalVariant, repeat: number): string {
  return `${safe(task.id)}--${safe(variant.label)}--${repeat}`;
}

/** Runs the task once under the variant; a crash or timeout is a failed run, not an exception. */
export async function runEvalTask(options: EvalRunOptions): Promise<EvalRunRecord> {
  const { task, variant } = options;
  const sessionFile = nodePath.join(options.outDir, "sessions", `${evalRunName(task, variant, options.repeat)}.jsonl`);
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
    return evalRecord({
      task,
      variant,
      repeat: options.repeat,
      ...(outcome.result ? { result: outcome.result } : {}),
      failure: outcome.timedOut ? "timeout" : `crashed: ${outcome.stderrTail.split("\n").at(-1) ?? ""}`,
      check,
      sessionText: await readFile(sessionFile, "utf8").catch(() => ""),
      wallMs: outcome.wallMs,
      sessionFile,
    });
  } finally {
    await workspace.cleanup();
  }
}

/** What a run gave, however it ran (a local child or a fleet job). */
export type EvalRunFacts = {
  task: EvalTask;
  variant: EvalVariant;
  repeat: number;
  /** The run's JSON-mode result line, when it got that far. */
  result?: Record<string, unknown>;
  /** Why the run ended without a result: "timeout", "crashed: …" (counted as a harness error). */
  failure: string;
  check: CheckOutcome;
  /** The run's session journal (JSONL), where harness faults are counted. */
  sessionText: string;
  wallMs: number;
  sessionFile: string;
};

/** The run's record for the results table. */
export function evalRecord(facts: EvalRunFacts): EvalRunRecord {
  const { task, result, check } = facts;
  const harnessErrors = harnessFaultsOf(facts.sessionText);
  if (result === undefined) {
    const kind = facts.failure === "timeout" ? "timeout" : "crash";
    harnessErrors[kind] = (harnessErrors[kind] ?? 0) + 1;
  }
  const usage = (result?.usage ?? {}) as { totalTokens?: number };
  return {
    task: task.id,
    variant: facts.variant.label,
    repeat: facts.repeat,
    passed: check.code === 0,
    reason: result ? String(result.reason) : facts.failure,
    cost: Number(result?.cost ?? 0),
    tokens: Number(usage.totalTokens ?? 0),
    turns: Number(result?.turns ?? 0),
    wallMs: facts.wallMs,
    harnessErrors,
    ...(check.code === 0 ? {} : { checkOutput: check.output }),
    sessionFile: facts.sessionFile,
    ...("folder" in task.source
      ? {
          replay: `gyre replay ${JSON.stringify(facts.sessionFile)} --workspace ${JSON.stringify(task.source.folder)}`,
        }
      : {}),
  };
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

/** Counts the harness's error results in a session journal's text. */
function harnessFaultsOf(sessionText: string): Record<string, number> {
  const faults: Record<string, number> = {};
  for (const line of sessionText.split("\n")) {
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
