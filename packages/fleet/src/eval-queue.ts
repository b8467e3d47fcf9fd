/**
 * `gyre eval --redis URL`: every run of the plan becomes a fleet job (a fresh copy of the task's
 * folder or a clone of its git source per attempt, the task's check run by the worker afterwards)
 * that whichever workers serve the queue run, on any machine. The eval collects each job's
 * result and its journal from Redis and builds the same records as local runs. The workers use
 * their own build and their own provider keys: a job names a model, never a key or a binary.
 */
import { writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { EvalRunRecord } from "./eval-report.js";
import { evalRecord, evalRunName } from "./eval-run.js";
import type { EvalTask, EvalVariant } from "./eval-tasks.js";
import type { FleetClient, JobInfo } from "./fleet-client.js";
import type { JobPayload } from "./job-payload.js";

export type EvalPlanItem = { task: EvalTask; variant: EvalVariant; repeat: number };

export type QueuedEvalOptions = {
  plan: readonly EvalPlanItem[];
  client: FleetClient;
  /** Where each run's session (read back from its journal) is written, under `sessions/`. */
  outDir: string;
  /** A run active longer than this is cancelled and recorded as a timeout. */
  timeoutMs: number;
  /** A faux script every worker can read (the same path on each machine). */
  fauxScript?: string;
  sandbox?: JobPayload["sandbox"];
  /** Called once per finished run, in the order they finish. */
  onRecord?: (record: EvalRunRecord) => void;
};

/** How often the eval asks the queue about its jobs (a job takes seconds at the least). */
const POLL_MS = 250;

/** Submits every run, waits for all of them and returns their records in plan order. */
export async function runEvalThroughQueue(options: QueuedEvalOptions): Promise<EvalRunRecord[]> {
  const { plan, client } = options;
  const ids: string[] = [];
  for (const item of plan) ids.push(await client.submit(payloadOf(item, options)));
  const records: EvalRunRecord[] = new Array(plan.length);
  const pending = new Set(plan.keys());
  const timedOut = new Set<number>();
  while (pending.size > 0) {
    for (const index of [...pending]) {
      const id = ids[index] as string;
      const info = await client.get(id);
      const ended = info === undefined || info.state === "completed" || info.state === "failed";
      if (!ended) {
        if (
          info.state === "active" &&
          !timedOut.has(index) &&
          Date.now() - (info.startedAt ?? Date.now()) > options.timeoutMs
        ) {
          timedOut.add(index);
          await client.cancel(id);
        }
        continue;
      }
      const record = await collect(plan[index] as EvalPlanItem, id, info, options, timedOut.has(index));
      records[index] = record;
      pending.delete(index);
      options.onRecord?.(record);
    }
    if (pending.size > 0) await sleep(POLL_MS);
  }
  return records;
}

function payloadOf(item: EvalPlanItem, options: QueuedEvalOptions): JobPayload {
  const { task, variant } = item;
  return {
    prompt: task.prompt,
    ...("folder" in task.source ? { folder: task.source.folder } : { git: task.source.git }),
    check: task.check,
    ...(variant.model.provider ? { provider: variant.model.provider } : {}),
    ...(variant.model.model ? { model: variant.model.model } : {}),
    ...(options.fauxScript ? { fauxScript: options.fauxScript } : {}),
    ...(task.tools === undefined ? {} : { tools: task.tools }),
    ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  };
}

/** The finished job's record: its result and check from the queue, its session from its journal. */
async function collect(
  item: EvalPlanItem,
  id: string,
  info: JobInfo | undefined,
  options: QueuedEvalOptions,
  timedOut: boolean,
): Promise<EvalRunRecord> {
  const sessionFile = nodePath.join(
    options.outDir,
    "sessions",
    `${evalRunName(item.task, item.variant, item.repeat)}.jsonl`,
  );
  const sessionText = await options.client.sessionJsonl(id);
  await writeFile(sessionFile, sessionText, { mode: 0o600 });
  const job = info?.state === "completed" ? info.result : undefined;
  const why = info === undefined ? "the job vanished from the queue" : (info.failedReason ?? "no result");
  return evalRecord({
    ...item,
    // An answer taken from the journal (a retry after the worker died) has no result line of its own.
    ...(job ? { result: job.result ?? { reason: job.reason } } : {}),
    failure: timedOut ? "timeout" : `crashed: ${why}`,
    check: job?.check ?? { code: null, output: `The check did not run: ${why}.` },
    sessionText,
    wallMs: info?.finishedAt && info.startedAt ? info.finishedAt - info.startedAt : 0,
    sessionFile,
  });
}
