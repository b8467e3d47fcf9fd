/**
 * `gyre eval tasks.jsonl [--workers N] [--model p/m]… [--build label=bin]… [--repeat k] [--out DIR]`:
 * every task × variant × repeat as its own child gyre in a fresh copy of the task's folder, N at
 * a time on this machine; with `--redis URL [--queue name]`, every run is a fleet job instead,
 * run by the queue's workers on any machine (eval-queue.ts). Writes results.json, results.md and results.html
 * to the output folder and prints the Markdown. Exit 0 once every run ended (failed checks are
 * results, not errors); 2 on bad input.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import type { Writable } from "node:stream";
import { CliError } from "gyre/fleet-support";
import { parseCommandArgs } from "./command-args.js";
import { renderEvalHtml } from "./eval-html.js";
import type { EvalPlanItem } from "./eval-queue.js";
import { type EvalRunRecord, renderEvalMarkdown, summariseRuns } from "./eval-report.js";
import { runEvalTask } from "./eval-run.js";
import { type EvalVariant, parseEvalBuild, parseEvalModel, parseEvalTasks } from "./eval-tasks.js";
import { DEFAULT_QUEUE } from "./fleet-keys.js";
import type { JobPayload } from "./job-payload.js";

type Io = { stdout: Writable; stderr: Writable; env: NodeJS.ProcessEnv; cwd: string; gyreBin: string };

const FLAGS = {
  workers: { type: "string" },
  model: { type: "string", multiple: true },
  build: { type: "string", multiple: true },
  repeat: { type: "string" },
  out: { type: "string" },
  "faux-script": { type: "string" },
  sandbox: { type: "string" },
  timeout: { type: "string" },
  redis: { type: "string" },
  queue: { type: "string" },
} as const;

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new CliError("bad_usage", `${name} must be a whole number of 1 or more; got "${value}".`);
  return number;
}

/** Runs `gyre eval`; returns the exit code. */
export async function runEvalCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs("eval", argv, FLAGS);
  if (positionals.length !== 1)
    throw new CliError("bad_usage", "gyre eval needs one tasks file: gyre eval tasks.jsonl.");
  const tasksFile = nodePath.resolve(io.cwd, positionals[0] as string);
  const text = await readFile(tasksFile, "utf8").catch(() => {
    throw new CliError("bad_usage", `Cannot read the tasks file ${tasksFile}.`);
  });
  const tasks = parseEvalTasks(text, tasksFile);
  const builds = (values.build ?? []).map((spec) => parseEvalBuild(spec, io.cwd));
  const models = (values.model ?? []).map(parseEvalModel);
  const variants = variantsOf(builds.length > 0 ? builds : [{ label: "", gyreBin: io.gyreBin }], models);
  const repeat = count(values.repeat, "--repeat", 1);
  const workers = count(values.workers, "--workers", 1);
  const timeoutMs = count(values.timeout, "--timeout", 600) * 1000;
  if (values.redis !== undefined) refuseLocalOnly(values);
  const outDir = nodePath.resolve(io.cwd, values.out ?? `eval-${new Date().toISOString().replace(/[:.]/g, "-")}`);
  await mkdir(nodePath.join(outDir, "sessions"), { recursive: true });
  const extraArgs = [
    ...(values["faux-script"] ? ["--faux-script", nodePath.resolve(io.cwd, values["faux-script"])] : []),
    ...(values.sandbox ? ["--sandbox", values.sandbox] : []),
  ];
  const plan = variants.flatMap((variant) =>
    tasks.flatMap((task) => Array.from({ length: repeat }, (_, index) => ({ task, variant, repeat: index + 1 }))),
  );
  io.stderr.write(
    `gyre eval: ${counted(plan.length, "run")} (${counted(tasks.length, "task")} × ${counted(variants.length, "variant")} × ${counted(repeat, "repeat")}), ${values.redis === undefined ? `${workers} at a time` : `as jobs on queue ${values.queue ?? DEFAULT_QUEUE}`}\n`,
  );
  const progress = (record: EvalRunRecord) =>
    io.stderr.write(
      `gyre eval: ${record.variant} · ${record.task} #${record.repeat}: ${record.passed ? "pass" : `fail (${record.reason})`}\n`,
    );
  const records =
    values.redis === undefined
      ? await inPool(plan, workers, async (item) => {
          const record = await runEvalTask({ ...item, outDir, env: io.env, extraArgs, timeoutMs });
          progress(record);
          return record;
        })
      : await runQueued(values, { plan, outDir, timeoutMs, onRecord: progress, cwd: io.cwd });
  const summaries = summariseRuns(records);
  const markdown = renderEvalMarkdown(summaries, records);
  const report = {
    tasksFile,
    startedRuns: plan.length,
    variants: variants.map(describeVariant),
    summaries,
    runs: records,
  };
  await writeFile(nodePath.join(outDir, "results.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(nodePath.join(outDir, "results.md"), markdown);
  await writeFile(nodePath.join(outDir, "results.html"), renderEvalHtml(summaries));
  io.stdout.write(markdown);
  io.stderr.write(`gyre eval: results in ${outDir}\n`);
  return 0;
}

type Values = ReturnType<typeof parseCommandArgs<typeof FLAGS>>["values"];

/** Flags that pick local processes make no sense when the fleet's workers run the jobs. */
function refuseLocalOnly(values: Values): void {
  if (values.build !== undefined)
    throw new CliError(
      "bad_usage",
      "gyre eval --redis runs each job on the workers' own build; to compare builds, run workers of each build on their own --queue and eval each queue.",
    );
  if (values.workers !== undefined)
    throw new CliError("bad_usage", "--workers counts local runs; with --redis the queue's workers run the jobs.");
  if (!/^rediss?:\/\//.test(values.redis ?? ""))
    throw new CliError("bad_usage", `--redis must be a redis:// URL; got "${values.redis}".`);
}

async function runQueued(
  values: Values,
  options: {
    plan: EvalPlanItem[];
    outDir: string;
    timeoutMs: number;
    onRecord: (record: EvalRunRecord) => void;
    cwd: string;
  },
): Promise<EvalRunRecord[]> {
  const sandbox = values.sandbox;
  if (sandbox !== undefined && !["workspace-write", "read-only", "off"].includes(sandbox))
    throw new CliError("bad_usage", `--sandbox must be workspace-write, read-only or off; got "${sandbox}".`);
  const [{ createFleetClient }, { runEvalThroughQueue }] = await Promise.all([
    import("./fleet-client.js"),
    import("./eval-queue.js"),
  ]);
  const client = await createFleetClient({ redisUrl: values.redis as string, queue: values.queue ?? DEFAULT_QUEUE });
  try {
    return await runEvalThroughQueue({
      ...options,
      client,
      ...(values["faux-script"] ? { fauxScript: nodePath.resolve(options.cwd, values["faux-script"]) } : {}),
      ...(sandbox ? { sandbox: sandbox as JobPayload["sandbox"] } : {}),
    });
  } finally {
    await client.close();
  }
}

function variantsOf(
  builds: { label: string; gyreBin: string }[],
  models: ReturnType<typeof parseEvalModel>[],
): EvalVariant[] {
  const chosen = models.length > 0 ? models : [{ label: "" }];
  return builds.flatMap((build) =>
    chosen.map((model) => ({
      label: [build.label, model.label].filter(Boolean).join(" · ") || "default",
      gyreBin: build.gyreBin,
      model,
    })),
  );
}

function describeVariant(variant: EvalVariant) {
  return {
    label: variant.label,
    gyreBin: variant.gyreBin,
    provider: variant.model.provider,
    model: variant.model.model,
  };
}

/** Maps `items` with at most `size` in flight; results keep the items' order. */
async function inPool<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane));
  return results;
}

/** `1 task`, `2 tasks`. */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
