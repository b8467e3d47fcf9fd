/**
 * `gyre worker`: takes jobs from a BullMQ queue on Redis and runs each as a gyre session
 * (see run-job.ts). Many workers on many machines share one queue; BullMQ gives retries with
 * backoff, concurrency, priorities and stalled-job recovery (a worker that dies leaves its job
 * to another, which resumes from the journal). bullmq and ioredis load only here (start-up).
 */
import { createRedactor } from "gyre/fleet-support";
import { fleetKeys } from "./fleet-keys.js";
import { parseJobPayload } from "./job-payload.js";
import { type JobResult, jobSessionFile, runJob } from "./run-job.js";
import { refuseJob, type WorkerPolicy } from "./worker-policy.js";

export type WorkerOptions = {
  redisUrl: string;
  queue: string;
  concurrency: number;
  gyreHome: string;
  gyreBin: string;
  env: NodeJS.ProcessEnv;
  /** What jobs may do here (`--allow-root`, `--allow-…` flags); default: nothing beyond the defaults. */
  policy?: WorkerPolicy;
  /** How long a job's lock lasts without renewal: a dead worker's job is taken over after it. Default 30 s. */
  lockDurationMs?: number;
  /**
   * On `close()`, how long running jobs may go on to their end; those still running then are
   * stopped and put back in the queue for another worker, which resumes them from the journal.
   * Default 10 s.
   */
  graceMs?: number;
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
  const [{ Worker, UnrecoverableError, WaitingError }, { Redis }] = await Promise.all([
    import("bullmq"),
    import("ioredis"),
  ]);
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const controllers = new Map<string, AbortController>();
  /** Jobs stopped because the worker is stopping (not cancelled): they go back to the queue. */
  const handedBack = new Set<string>();
  const policy: WorkerPolicy = options.policy ?? {
    allowRoots: [],
    allowSandboxOff: false,
    allowMcpConfig: false,
    allowFauxScript: false,
  };
  // Whatever the queue stores (results, failure reasons) passes through this first.
  const redact = createRedactor({ env: options.env });
  const lost = new Set<string>();
  const reportLost = (jobId: string) => {
    if (lost.has(jobId)) return;
    lost.add(jobId);
    options.log?.(
      `job ${jobId} lost: Redis lost its data (restarted without persistence?); its session is kept in ${jobSessionFile(options.gyreHome, options.queue, jobId)}`,
    );
  };
  const jobGone = async (jobId: string) => (await redis.exists(`bull:${options.queue}:${jobId}`).catch(() => 1)) === 0;
  let stopping = false;
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  reportOutages(redis, options.log);
  subscriber.on("error", () => {}); // the same outage, reported once through `redis`
  await subscriber.subscribe(fleetKeys.cancelChannel(options.queue));
  subscriber.on("message", (_channel: string, jobId: string) => controllers.get(jobId)?.abort());
  const worker = new Worker<unknown, JobResult>(
    options.queue,
    async (job, token) => {
      const parsed = parseJobPayload(job.data);
      if (!parsed.ok) throw new UnrecoverableError(parsed.error);
      const refused = await refuseJob(parsed.value, policy, options.env.HOME);
      if (refused !== undefined) throw new UnrecoverableError(refused);
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
        if (result.reason === "cancelled" && handedBack.has(jobId)) {
          // Not the job's failure: back to waiting (no attempt counted), its journal kept.
          outcome = "left for another worker";
          await job.moveToWait(token);
          throw new WaitingError();
        }
        if (result.reason === "cancelled") throw new UnrecoverableError("The job was cancelled.");
        if (await jobGone(jobId)) reportLost(jobId);
        return result;
      } catch (error) {
        if (error instanceof WaitingError) throw error;
        if (await jobGone(jobId)) reportLost(jobId);
        const message = redact((error as Error).message);
        if (outcome === "failed") outcome = `failed: ${message}`;
        throw error instanceof UnrecoverableError ? new UnrecoverableError(message) : new Error(message);
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
    // BullMQ's words when a job's keys vanished under it (Redis restarted empty).
    const missing = /Missing key for job (\S+?)\.? /.exec(`${error.message} `);
    if (missing?.[1]) reportLost(missing[1]);
    else if (!/ECONNREFUSED|ECONNRESET|Connection is closed|EPIPE/.test(error.message))
      options.log?.(`queue error: ${error.message}`);
  });
  await worker.waitUntilReady();
  options.onReady?.();
  return {
    async close() {
      stopping = true;
      const graceMs = options.graceMs ?? 10_000;
      // BullMQ's close takes no new job and resolves once the running ones have ended.
      const closed = worker.close();
      if (controllers.size > 0) {
        options.log?.(`stopping: ${controllers.size} running job(s) get ${graceMs} ms to finish`);
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([
          closed.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), graceMs);
          }),
        ]);
        clearTimeout(timer);
        if (late && controllers.size > 0) {
          options.log?.(`stopping: ${controllers.size} job(s) still running are left for another worker`);
          for (const [jobId, controller] of controllers) {
            handedBack.add(jobId);
            controller.abort();
          }
        }
      }
      await closed;
      await subscriber.quit();
      await redis.quit();
    },
  };
}
