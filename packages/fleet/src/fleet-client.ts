/**
 * The fleet's typed client (also behind `gyre submit`, `gyre jobs`, `gyre job`): submit a job,
 * follow its events live (a Redis Stream), cancel it (its worker stops the run, tools included),
 * read its result and its session as JSONL. bullmq and ioredis load on first use.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { createEventDeduper } from "./event-stream.js";
import { fleetKeys } from "./fleet-keys.js";
import { type JobPayload, parseJobPayload } from "./job-payload.js";
import type { JobResult } from "./run-job.js";
import { createRedisSessionStore } from "./session-store.js";

export type JobState =
  | "waiting"
  | "active"
  | "completed"
  | "failed"
  | "delayed"
  | "prioritized"
  | "waiting-children"
  | "unknown";

export type JobInfo = {
  id: string;
  state: JobState;
  prompt: string;
  attempts: number;
  result?: JobResult;
  failedReason?: string;
  createdAt: number;
  /** When the latest attempt started (absent while the job waits). */
  startedAt?: number;
  finishedAt?: number;
};

export type FleetClient = {
  submit(payload: JobPayload, options?: { priority?: number; attempts?: number; jobId?: string }): Promise<string>;
  get(jobId: string): Promise<JobInfo | undefined>;
  list(options?: { limit?: number }): Promise<JobInfo[]>;
  /**
   * Every event line of the job from the start (or after the stream id `after`), then live ones,
   * until it ends (or `signal` fires). Each event comes once: a Redis outage is waited out and
   * the read resumes after the last entry seen, and an entry Redis stored twice is dropped.
   */
  follow(jobId: string, options?: { signal?: AbortSignal; after?: string }): AsyncGenerator<Record<string, unknown>>;
  cancel(jobId: string): Promise<void>;
  /** The job's session journal, one JSON line per entry (header first). */
  sessionJsonl(jobId: string): Promise<string>;
  close(): Promise<void>;
};

const FOLLOW_RETRY_MS = 200;

async function reachable(redis: Redis, url: string, timeoutMs: number, lastError: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    redis.ping().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (answered) return;
  redis.disconnect();
  const why = lastError() ? ` (${lastError()})` : "";
  throw new Error(
    `Cannot reach Redis at ${url} within ${timeoutMs / 1000} s${why}; start redis-server or pass the right --redis URL.`,
  );
}

/**
 * Connects a client to `redisUrl`'s queue `queue`. With `connectTimeoutMs`, Redis must answer
 * within it or this throws a sentence naming the URL (a command run by hand should not wait
 * silently for a server that is not there); after that, an outage is waited out.
 */
export async function createFleetClient(options: {
  redisUrl: string;
  queue: string;
  connectTimeoutMs?: number;
}): Promise<FleetClient> {
  const [{ Queue: QueueClass }, { Redis: RedisClass }] = await Promise.all([import("bullmq"), import("ioredis")]);
  const redis: Redis = new RedisClass(options.redisUrl, { maxRetriesPerRequest: null });
  // ioredis reconnects and queues commands meanwhile; without a listener each retry is printed.
  let lastError = "";
  redis.on("error", (error: Error) => {
    lastError = error.message;
  });
  if (options.connectTimeoutMs !== undefined)
    await reachable(redis, options.redisUrl, options.connectTimeoutMs, () => lastError);
  const queue: Queue = new QueueClass(options.queue, { connection: redis });
  queue.on("error", () => {}); // the same outage; BullMQ prints an unheard error event
  const journals = createRedisSessionStore(redis, (id) => fleetKeys.journal(options.queue, id));
  const info = async (jobId: string): Promise<JobInfo | undefined> => {
    // The state first, then the job: read the other way round, a job that finished in between
    // reads "completed" with the result it did not have yet.
    const state = (await queue.getJobState(jobId)) as JobState;
    const job = await queue.getJob(jobId);
    if (job === undefined || job === null) return undefined;
    const data = job.data as Partial<JobPayload>;
    return {
      id: jobId,
      state,
      prompt: String(data.prompt ?? ""),
      // Started attempts: an active job is on its first (not 0), a taken-over one on its second.
      attempts: Math.max(job.attemptsStarted ?? 0, job.attemptsMade),
      ...(job.returnvalue ? { result: job.returnvalue as JobResult } : {}),
      ...(job.failedReason ? { failedReason: job.failedReason } : {}),
      createdAt: job.timestamp,
      ...(job.processedOn ? { startedAt: job.processedOn } : {}),
      ...(job.finishedOn ? { finishedAt: job.finishedOn } : {}),
    };
  };
  return {
    async submit(payload, submitOptions = {}) {
      const checked = parseJobPayload(payload);
      if (!checked.ok) throw new Error(checked.error);
      const job = await queue.add("gyre", checked.value, {
        attempts: submitOptions.attempts ?? 3,
        backoff: { type: "exponential", delay: 1000 },
        removeOnComplete: false,
        removeOnFail: false,
        ...(submitOptions.priority === undefined ? {} : { priority: submitOptions.priority }),
        ...(submitOptions.jobId === undefined ? {} : { jobId: submitOptions.jobId }),
      });
      return job.id as string;
    },
    get: info,
    async list(listOptions = {}) {
      const jobs = await queue.getJobs(
        ["active", "waiting", "delayed", "prioritized", "completed", "failed"],
        0,
        (listOptions.limit ?? 50) - 1,
      );
      const found = await Promise.all(jobs.filter((job) => job?.id).map((job) => info(job.id as string)));
      return found.filter((job): job is JobInfo => job !== undefined).sort((a, b) => b.createdAt - a.createdAt);
    },
    async *follow(jobId, followOptions = {}) {
      const reader: Redis = redis.duplicate();
      reader.on("error", () => {});
      const events = createEventDeduper();
      // The last stream id seen: after an outage the read goes on from there, never from the start.
      let cursor = followOptions.after ?? "0";
      try {
        while (!followOptions.signal?.aborted) {
          let entries: [string, string[]][];
          try {
            const batch = (await reader.xread(
              "COUNT",
              500,
              "BLOCK",
              500,
              "STREAMS",
              fleetKeys.events(options.queue, jobId),
              cursor,
            )) as [string, [string, string[]][]][] | null;
            entries = batch?.[0]?.[1] ?? [];
          } catch {
            // The connection went in mid-read; ioredis reconnects, and the next read resumes at `cursor`.
            await sleep(FOLLOW_RETRY_MS);
            continue;
          }
          for (const [id, fields] of entries) {
            cursor = id;
            const event = events.accept(fields);
            if (event !== undefined) yield event;
          }
          if (entries.length === 0) {
            const state = (await info(jobId).catch(() => ({ state: "unknown" as const })))?.state;
            if (state === "completed" || state === "failed" || state === undefined) return;
          }
        }
      } finally {
        reader.disconnect();
      }
    },
    async cancel(jobId) {
      await redis.set(fleetKeys.cancel(options.queue, jobId), "1", "EX", 7 * 24 * 3600);
      await redis.publish(fleetKeys.cancelChannel(options.queue), jobId);
      const job = await queue.getJob(jobId);
      const state = await job?.getState();
      if (state === "waiting" || state === "delayed" || state === "prioritized") await job?.remove();
    },
    async sessionJsonl(jobId) {
      const lines = await journals.readAll(jobId);
      return lines.map((line) => `${line}\n`).join("");
    },
    async close() {
      await queue.close();
      await redis.quit();
    },
  };
}
