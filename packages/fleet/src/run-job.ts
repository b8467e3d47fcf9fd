/**
 * One attempt at a fleet job on a worker: the session journal in Redis is the source of truth.
 * The attempt rebuilds the session file from the journal stream (empty on a first attempt), and
 * when the journal already ends in a final answer it returns that answer without a model call.
 * Otherwise it runs `gyre --mode json -p --session <file>` as a child (its own process, the
 * sandbox and tools of a normal run, exiting if the worker dies), copies every event line to the
 * job's event stream, and stops the child on cancel. The child appends each journal line to the
 * job's journal stream itself, before its session file, and a tool runs only once its call is in
 * the stream (see session-store.ts). A resumed attempt opens the session as `--continue` does (tool calls without a result
 * get the "interrupted" result; nothing is re-run) and asks the model to go on.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { createRedactor, type Redactor } from "gyre/fleet-support";
import type { Redis } from "ioredis";
import { eventEntryFields } from "./event-stream.js";
import { fleetKeys } from "./fleet-keys.js";
import { type JobPayload, payloadArguments } from "./job-payload.js";
import type { CheckOutcome } from "./run-check.js";
import { runSandboxedCheck } from "./sandboxed-check.js";
import { createRedisSessionStore, sessionJournalEnv } from "./session-store.js";
import { freshWorkspace, sessionHeaderLine, type Workspace } from "./workspace-copy.js";

export type JobResult = {
  reason: string;
  text: string;
  exitCode: number | null;
  /** True when the journal already held the answer (a retry after the answer was written). */
  fromJournal: boolean;
  attempt: number;
  result?: Record<string, unknown>;
  /** The payload's check command's outcome, when it carries one. */
  check?: CheckOutcome;
};

export type RunJobOptions = {
  queue: string;
  jobId: string;
  attempt: number;
  payload: JobPayload;
  redis: Redis;
  /** The URL `redis` connects to (the child opens its own connection for the journal). */
  redisUrl: string;
  /** The worker's own gyre home (settings, keys in its environment); sessions of jobs go under it. */
  gyreHome: string;
  /** The gyre bin to run. */
  gyreBin: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
};

const RESUME_PROMPT =
  "The previous attempt at this task was interrupted (its worker stopped). Continue the task from where it stopped; do not redo finished steps.";

/**
 * Runs the attempt to its end; throws (with a sentence) only when the job cannot run at all. The
 * result (stored in Redis by the queue) has the worker's keys redacted, like every event line.
 */
export async function runJob(options: RunJobOptions): Promise<JobResult> {
  const redact = createRedactor({ env: options.env });
  return redactJson(await runAttempt({ ...options, redact }), redact);
}

/** `value` with every secret the redactor knows replaced, at any depth. */
export function redactJson<T>(value: T, redact: Redactor): T {
  return JSON.parse(redact(JSON.stringify(value))) as T;
}

/** The session file an attempt at job `jobId` keeps on the worker (it stays after the job). */
export function jobSessionFile(gyreHome: string, queue: string, jobId: string): string {
  return nodePath.join(gyreHome, "fleet", "sessions", `${queue}-${jobId}.jsonl`);
}

async function runAttempt(options: RunJobOptions & { redact: Redactor }): Promise<JobResult> {
  const file = jobSessionFile(options.gyreHome, options.queue, options.jobId);
  await mkdir(nodePath.dirname(file), { recursive: true, mode: 0o700 });
  const check = (cwd: string) =>
    runSandboxedCheck(options.payload.check as string, {
      cwd,
      env: options.env,
      gyreHome: options.gyreHome,
      mode: options.payload.sandbox ?? "workspace-write",
    });
  const store = createRedisSessionStore(options.redis, (id) => fleetKeys.journal(options.queue, id));
  const lines = await store.readAll(options.jobId);
  const workspace = await prepareWorkspace(options.payload);
  try {
    if (lines.length === 0) {
      lines.push(sessionHeaderLine(workspace.cwd));
      await store.append(options.jobId, lines);
    }
    await writeFile(file, `${lines.join("\n")}\n`, { mode: 0o600 });
    const answered = finalAnswerOf(lines);
    if (answered !== undefined) {
      const result: JobResult = {
        reason: "stop",
        text: answered,
        exitCode: 0,
        fromJournal: true,
        attempt: options.attempt,
      };
      // A fresh copy holds none of the files the earlier attempt changed: checking it would lie.
      if (options.payload.check === undefined) return result;
      if (options.payload.cwd === undefined) return { ...result, check: { code: null, output: LOST_FILES } };
      return { ...result, check: await check(workspace.cwd) };
    }
    // A worker can stop after the child wrote its first lines (a model change) but before the
    // prompt: such a journal holds no task yet, so the attempt starts from the job's own prompt.
    const prompt = holdsPrompt(lines) ? RESUME_PROMPT : options.payload.prompt;
    const result = await runChild({ ...options, file, cwd: workspace.cwd, prompt });
    if (options.payload.check === undefined || result.reason === "cancelled") return result;
    return { ...result, check: await check(workspace.cwd) };
  } finally {
    await workspace.cleanup();
  }
}

const LOST_FILES =
  "The check did not run: the attempt that answered ran in a copy of the folder that went with its worker.";

async function prepareWorkspace(payload: JobPayload): Promise<Workspace> {
  if (payload.cwd !== undefined) return { cwd: payload.cwd, cleanup: async () => {} };
  if (payload.folder !== undefined) return freshWorkspace({ folder: payload.folder }, "gyre-job-");
  return freshWorkspace({ git: payload.git as { url: string; ref?: string } }, "gyre-job-");
}

type ChildRun = RunJobOptions & { file: string; cwd: string; prompt: string; redact: Redactor };

async function runChild(run: ChildRun): Promise<JobResult> {
  const args = [run.gyreBin, "--mode", "json", "-p", "--session", run.file, ...payloadArguments(run.payload)];
  const child = spawn(process.execPath, args, {
    cwd: run.cwd,
    env: {
      ...run.env,
      GYRE_HOME: run.gyreHome,
      GYRE_EXIT_WITH_PARENT: "1",
      ...(run.payload.traceparent ? { TRACEPARENT: run.payload.traceparent } : {}),
      ...sessionJournalEnv({ redisUrl: run.redisUrl, key: fleetKeys.journal(run.queue, run.jobId), file: run.file }),
    },
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group: a Ctrl-C in the worker's terminal reaches the worker, which decides
    // (grace, then back to the queue), not every job's run at once.
    detached: true,
  });
  // The prompt goes on stdin: on argv a long one fails (E2BIG) and anyone can read it in `ps`.
  child.stdin?.on("error", () => {}); // a child that exits early closes the pipe: its exit says why
  child.stdin?.end(run.prompt);
  const stopChild = () => child.kill("SIGTERM");
  run.signal.addEventListener("abort", stopChild, { once: true });
  let result: Record<string, unknown> | undefined;
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const events = copyEvents(child, run, (line) => {
    if (line.type === "result") result = line;
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  run.signal.removeEventListener("abort", stopChild);
  await events;
  if (run.signal.aborted) return { reason: "cancelled", text: "", exitCode, fromJournal: false, attempt: run.attempt };
  if (result === undefined)
    throw new Error(
      `The gyre run ended without a result (exit ${exitCode}): ${stderr.trim().split("\n").at(-1) ?? ""}`,
    );
  return {
    reason: String(result.reason),
    text: String(result.text ?? ""),
    exitCode,
    fromJournal: false,
    attempt: run.attempt,
    result,
  };
}

/** Copies each stdout JSON line to the events stream (in order) and hands it to `onLine`. */
async function copyEvents(
  child: ChildProcess,
  run: ChildRun,
  onLine: (line: Record<string, unknown>) => void,
): Promise<void> {
  const key = fleetKeys.events(run.queue, run.jobId);
  const runId = randomUUID().slice(0, 8);
  let seq = 0;
  let buffered = "";
  let chain = Promise.resolve();
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    buffered += chunk.toString("utf8");
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      if (line.trim() === "") continue;
      try {
        onLine(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not JSON: still kept in the stream for whoever follows the job.
      }
      const fields = eventEntryFields(run.redact(line), runId, ++seq);
      chain = chain.then(() => run.redis.xadd(key, "MAXLEN", "~", "100000", "*", ...fields).then(() => {}));
    }
  }
  await chain;
}

/** Whether the journal holds the job's prompt: a user message after the header. */
export function holdsPrompt(lines: readonly string[]): boolean {
  return lines.slice(1).some((line) => {
    try {
      const entry = JSON.parse(line) as { type?: string; message?: { role?: string } };
      return entry.type === "message" && entry.message?.role === "user";
    } catch {
      return false;
    }
  });
}

/** The final answer when the journal's last message is an assistant message that stopped without tool calls. */
export function finalAnswerOf(lines: readonly string[]): string | undefined {
  for (let index = lines.length - 1; index > 0; index--) {
    let entry: {
      type?: string;
      message?: { role?: string; stopReason?: string; content?: { type: string; text?: string }[] };
    };
    try {
      entry = JSON.parse(lines[index] as string);
    } catch {
      continue;
    }
    if (entry.type !== "message") continue;
    const message = entry.message;
    if (message?.role !== "assistant" || message.stopReason !== "stop") return undefined;
    return (message.content ?? [])
      .filter((block) => block.type === "text")
      .map((block) => block.text ?? "")
      .join("");
  }
  return undefined;
}
