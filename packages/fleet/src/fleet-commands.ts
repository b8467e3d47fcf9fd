/**
 * The fleet's subcommands: `gyre worker`, `gyre submit`, `gyre jobs`, `gyre job <id>`, and the
 * batch tools beside them, `gyre eval` and `gyre replay`. Flags are
 * parsed with node:util's parseArgs; a bad one is exit 2 with one sentence. The Redis URL comes
 * from `--redis` or `GYRE_REDIS_URL`.
 */

import { realpathSync } from "node:fs";
import * as nodePath from "node:path";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { CliError, describeUsageError, getGyreHome, traceparentForJob } from "gyre/fleet-support";
import { DEFAULT_QUEUE } from "./fleet-keys.js";
import type { JobPayload } from "./job-payload.js";

type Io = { stdout: Writable; stderr: Writable; env: NodeJS.ProcessEnv; cwd: string };

const common = { redis: { type: "string" }, queue: { type: "string" } } as const;

/** Runs a fleet subcommand; returns the exit code. */
export async function runFleetCommand(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "worker":
      return runWorkerCommand(rest, io);
    case "submit":
      return runSubmitCommand(rest, io);
    case "jobs":
      return runJobsCommand(rest, io);
    case "job":
      return runJobCommand(rest, io);
    case "eval": {
      const { runEvalCommand } = await import("./eval-command.js");
      return runEvalCommand(rest, { ...io, gyreBin: realpathSync(process.argv[1] ?? "") });
    }
    case "replay": {
      const { runReplayCommand } = await import("./replay-command.js");
      return runReplayCommand(rest, { ...io, gyreBin: realpathSync(process.argv[1] ?? "") });
    }
    default:
      throw new CliError(
        "bad_usage",
        `Unknown fleet command ${String(command)}; use worker, submit, jobs, job, eval or replay.`,
      );
  }
}

type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
type Parsed = { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };

function parse(command: string, argv: readonly string[], options: FlagSpec): Parsed {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...common, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: parsed.values as Parsed["values"], positionals: parsed.positionals };
  } catch (error) {
    throw new CliError("bad_usage", describeUsageError(command, error));
  }
}

function redisUrlOf(values: { redis?: unknown }, io: Io, command: string): string {
  const url = (values.redis as string | undefined) ?? io.env.GYRE_REDIS_URL;
  if (url === undefined)
    throw new CliError("bad_usage", `gyre ${command} needs --redis redis://host:port (or GYRE_REDIS_URL).`);
  if (!/^rediss?:\/\//.test(url)) throw new CliError("bad_usage", `--redis must be a redis:// URL; got "${url}".`);
  return url;
}

function positiveInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new CliError("bad_usage", `${name} must be a whole number of 1 or more; got "${String(value)}".`);
  return number;
}

async function runWorkerCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parse("worker", argv, {
    concurrency: { type: "string" },
    "lock-ms": { type: "string" },
    "grace-ms": { type: "string" },
    "allow-root": { type: "string", multiple: true },
    "allow-sandbox-off": { type: "boolean" },
    "allow-mcp-config": { type: "boolean" },
    "allow-faux-script": { type: "boolean" },
  });
  const { startWorker } = await import("./worker.js");
  const { resolveAllowRoots } = await import("./worker-policy.js");
  const roots = ((values["allow-root"] as string[] | undefined) ?? []).map((root) => nodePath.resolve(io.cwd, root));
  const allowRoots = await resolveAllowRoots(roots, io.env.HOME).catch((error: Error) => {
    throw new CliError("bad_usage", `gyre worker: ${error.message}`);
  });
  const gyreBin = realpathSync(process.argv[1] ?? "");
  const worker = await startWorker({
    redisUrl: redisUrlOf(values, io, "worker"),
    queue: (values.queue as string | undefined) ?? DEFAULT_QUEUE,
    concurrency: positiveInteger(values.concurrency, "--concurrency") ?? 1,
    gyreHome: getGyreHome(io.env),
    gyreBin,
    env: io.env,
    policy: {
      allowRoots,
      allowSandboxOff: values["allow-sandbox-off"] === true,
      allowMcpConfig: values["allow-mcp-config"] === true,
      allowFauxScript: values["allow-faux-script"] === true,
    },
    ...(values["lock-ms"] === undefined ? {} : { lockDurationMs: positiveInteger(values["lock-ms"], "--lock-ms") }),
    ...(values["grace-ms"] === undefined ? {} : { graceMs: positiveInteger(values["grace-ms"], "--grace-ms") }),
    onReady: () =>
      io.stderr.write(`gyre worker: ready on queue ${(values.queue as string | undefined) ?? DEFAULT_QUEUE}\n`),
    log: (line) => io.stderr.write(`gyre worker: ${line}\n`),
  });
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await worker.close();
  return 0;
}

async function runSubmitCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse("submit", argv, {
    cwd: { type: "string" },
    git: { type: "string" },
    provider: { type: "string" },
    model: { type: "string" },
    "faux-script": { type: "string" },
    tools: { type: "string" },
    "max-turns": { type: "string" },
    "max-cost": { type: "string" },
    priority: { type: "string" },
    follow: { type: "boolean" },
  });
  const prompt = positionals.join(" ").trim();
  if (prompt === "")
    throw new CliError("bad_usage", 'gyre submit needs a prompt: gyre submit --cwd DIR "fix the failing test".');
  const git = values.git as string | undefined;
  const [url, ref] = git === undefined ? [] : splitGitRef(git);
  const payload: JobPayload = {
    prompt,
    ...(git === undefined
      ? { cwd: nodePath.resolve(io.cwd, (values.cwd as string | undefined) ?? ".") }
      : { git: { url: url as string, ...(ref ? { ref } : {}) } }),
    ...(values.provider ? { provider: values.provider as string } : {}),
    ...(values.model ? { model: values.model as string } : {}),
    ...(values["faux-script"] ? { fauxScript: nodePath.resolve(io.cwd, values["faux-script"] as string) } : {}),
    ...(values.tools ? { tools: (values.tools as string).split(",").filter(Boolean) } : {}),
    ...(values["max-turns"] ? { maxTurns: positiveInteger(values["max-turns"], "--max-turns") as number } : {}),
    ...(values["max-cost"] ? { maxCostUsd: Number(values["max-cost"]) } : {}),
    ...traceContextOf(io.env),
  };
  const client = await connect(values, io, "submit");
  try {
    const priority = positiveInteger(values.priority, "--priority");
    const id = await client.submit(payload, priority === undefined ? {} : { priority });
    io.stdout.write(`${id}\n`);
    return values.follow ? await followJob(client, id, io) : 0;
  } finally {
    await client.close();
  }
}

async function runJobsCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values } = parse("jobs", argv, { limit: { type: "string" }, json: { type: "boolean" } });
  const client = await connect(values, io, "jobs");
  try {
    const jobs = await client.list({ limit: positiveInteger(values.limit, "--limit") ?? 50 });
    if (values.json) io.stdout.write(`${JSON.stringify(jobs)}\n`);
    else {
      io.stdout.write("id\tstate\tattempts\tprompt\n");
      for (const job of jobs)
        io.stdout.write(`${job.id}\t${job.state}\t${job.attempts}\t${job.prompt.slice(0, 60).replace(/\s+/g, " ")}\n`);
    }
    return 0;
  } finally {
    await client.close();
  }
}

async function runJobCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse("job", argv, {
    follow: { type: "boolean" },
    cancel: { type: "boolean" },
    session: { type: "boolean" },
  });
  const id = positionals[0];
  if (id === undefined)
    throw new CliError("bad_usage", "gyre job needs a job id: gyre job 12 [--follow|--cancel|--session].");
  const client = await connect(values, io, "job");
  try {
    const job = await client.get(id);
    if (job === undefined)
      throw new CliError("bad_usage", `There is no job ${id} in this queue; gyre jobs lists them.`);
    if (values.cancel) {
      await client.cancel(id);
      io.stderr.write(`gyre: job ${id} cancelled.\n`);
      return 0;
    }
    if (values.session) {
      io.stdout.write(await client.sessionJsonl(id));
      return 0;
    }
    if (values.follow) return await followJob(client, id, io);
    io.stdout.write(`${JSON.stringify(job)}\n`);
    return 0;
  } finally {
    await client.close();
  }
}

/** How long `submit`, `jobs` and `job` wait for Redis to answer at all. */
const CONNECT_TIMEOUT_MS = 5000;

async function connect(values: { redis?: unknown; queue?: unknown }, io: Io, command: string) {
  const { createFleetClient } = await import("./fleet-client.js");
  const redisUrl = redisUrlOf(values, io, command);
  return createFleetClient({
    redisUrl,
    queue: (values.queue as string | undefined) ?? DEFAULT_QUEUE,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
}

async function followJob(client: Awaited<ReturnType<typeof connect>>, id: string, io: Io): Promise<number> {
  for await (const event of client.follow(id)) io.stdout.write(`${JSON.stringify(event)}\n`);
  const job = await client.get(id);
  if (job?.state === "completed" && job.result?.reason === "stop") return 0;
  io.stderr.write(
    `gyre: job ${id} ${job?.state ?? "vanished"}${job?.failedReason ? `: ${job.failedReason}` : job?.result ? ` (${job.result.reason})` : ""}.\n`,
  );
  return 1;
}

function splitGitRef(source: string): [string, string | undefined] {
  const at = source.lastIndexOf("@");
  // user@host:repo has an @ before the path; a ref comes after the last path separator.
  if (at > Math.max(source.lastIndexOf("/"), source.lastIndexOf(":")))
    return [source.slice(0, at), source.slice(at + 1)];
  return [source, undefined];
}

/** The job's trace context, when the submitter has one or telemetry is on (core/telemetry/telemetry-config.ts). */
function traceContextOf(env: NodeJS.ProcessEnv): { traceparent?: string } {
  const traceparent = traceparentForJob(env);
  return traceparent === undefined ? {} : { traceparent };
}
