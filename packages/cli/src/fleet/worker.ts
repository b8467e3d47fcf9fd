/**
 * `gyre worker`: takes jobs from a BullMQ queue on Redis and runs each as a gyre session
 * (see run-job.ts). Many workers on many machines share one queue; BullMQ gives retries with
 * backoff, concurrency, priorities and stalled-job recovery (a worker that dies leaves its job
 * to another, which resumes from the journal). bullmq and ioredis load only here (start-up).
 */
import { fleetKeys } from "./fleet-keys.js";
import { parseJobPayload } from "./job-payload.js";
import { type JobResult, runJob } from "./run-job.js";

export type WorkerOptions = {
  redisUrl: string;
  queue: string;
  concurrency: number;
  gyreHome: string;
  gyreBin: string;
  env: NodeJS.ProcessEnv;
  /** How long a job's lock lasts without renewal: a dead worker's job is taken over after it. Default 30 s. */
  lockDurationMs?: number;
  /** Called once the worker listens. */
  onReady?: () => void;
  /** One line per job start and end, for the worker's log. */
  log?: (line: string) => void;
};

export type RunningWorker = { close(): Promise<void> };

/**
 * ioredis reconnects by itself and queues commands meanwhile (jobs wait, none fail): an outage
 * is one log line when it starts and one when Redis is back, not an error per retry.
 */
function reportOutages(redis: import("ioredis").Redis, log: ((line: string) => void) | undefined): void {
  let down = false;
  redis.on("error", (error: Error) => {
    if (!down) log?.(`redis unreachable (${error.message}); retrying, jobs in progress wait`);
    down = true;
  });
  redis.on("ready", () => {
    if (down) log?.("redis reachable again");
    down = false;
  });
}

/** Starts a worker; it runs until `close()`. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const [{ Worker, UnrecoverableError }, { Redis }] = await Promise.all([import("bullmq"), import("ioredis")]);
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const controllers = new Map<string, AbortController>();
  let stopping = false;
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  reportOutages(redis, options.log);
  subscriber.on("error", () => {}); // the same outage, reported once through `redis`
  await subscriber.subscribe(fleetKeys.cancelChannel(options.queue));
  subscriber.on("message", (_channel: string, jobId: string) => controllers.get(jobId)?.abort());
  const worker = new Worker<unknown, JobResult>(
    options.queue,
    async (job) => {
      const parsed = parseJobPayload(job.data);
      if (!parsed.ok) throw new UnrecoverableError(parsed.error);
      const jobId = job.id as string;
      if ((await redis.exists(fleetKeys.cancel(options.queue, jobId))) === 1)
        throw new UnrecoverableError("The job was cancelled.");
      const controller = new AbortController();
      controllers.set(jobId, controller);
      // attemptsStarted also counts a start after a worker died (a stalled job taken over);
      // attemptsMade counts only attempts that ended.
      const attempt = Math.max(job.attemptsStarted ?? 0, job.attemptsMade + 1);
      options.log?.(`job ${jobId} attempt ${attempt} started`);
      let outcome = "failed";
      try {
        const result = await runJob({
          queue: options.queue,
          jobId,
          attempt,
          payload: parsed.value,
          redis,
          redisUrl: options.redisUrl,
          gyreHome: options.gyreHome,
          gyreBin: options.gyreBin,
          env: options.env,
          signal: controller.signal,
        });
        outcome = result.reason;
        if (result.reason === "cancelled") throw new UnrecoverableError("The job was cancelled.");
        return result;
      } catch (error) {
        if (outcome === "failed") outcome = `failed: ${(error as Error).message}`;
        throw error;
      } finally {
        controllers.delete(jobId);
        // Every start gets its end, also when cancelled, failed or stopped with the worker.
        options.log?.(
          `job ${jobId} attempt ${attempt} ended: ${outcome}${stopping ? " (the worker is stopping)" : ""}`,
        );
      }
    },
    {
      connection: redis,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(1000, Math.floor((options.lockDurationMs ?? 30_000) / 2)),
      maxStalledCount: 3,
    },
  );
  // Connection errors are reported once per outage by reportOutages; anything else is logged.
  worker.on("error", (error: Error) => {
    if (!/ECONNREFUSED|ECONNRESET|Connection is closed|EPIPE/.test(error.message))
      options.log?.(`queue error: ${error.message}`);
  });
  await worker.waitUntilReady();
  options.onReady?.();
  return {
    async close() {
      stopping = true;
      if (controllers.size > 0) options.log?.(`stopping: aborting ${controllers.size} running job(s)`);
      for (const controller of controllers.values()) controller.abort();
      await worker.close();
      await subscriber.quit();
      await redis.quit();
    },
  };
}
