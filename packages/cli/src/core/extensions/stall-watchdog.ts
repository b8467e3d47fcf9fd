/**
 * The stall watchdog (docs/extensions.md#handlers-and-their-context). Extensions run on gyre's own thread, so a
 * handler stuck in a synchronous loop stops everything, the handler timeout included. While a
 * handler runs, the event loop beats into shared memory; a worker thread that sees no beat for
 * the stall time names the extension on stderr and ends gyre with `STALL_EXIT_CODE`.
 *
 * Only the CLI arms it (`armStallWatchdog`): an embedder's process is not gyre's to end. The
 * worker starts with the first extension load, so a run without extensions pays nothing.
 */
import { closeSync, writeSync } from "node:fs";
import type { Worker } from "node:worker_threads";

/** The exit code of a run the watchdog stopped. */
export const STALL_EXIT_CODE = 7;
/** How long the event loop may stand still while an extension handler runs. */
export const DEFAULT_STALL_MS = 15_000;

/** Slots of the shared beat array. */
const BEAT = 0;
const ACTIVE = 1;
const WHO = 2;
/** Where the main thread's stall handler is found by the expression the worker evaluates. */
const stallKey = Symbol.for("gyre.extensionStall");

type Watch = { path: string; label: string; who: number };
type Running = {
  beats: Int32Array;
  worker: Worker;
  /** `path\0label` → the number the worker knows it by (for its own sentence). */
  names: Map<string, number>;
  timer: NodeJS.Timeout | undefined;
  periodMs: number;
};

let stallMs: number | undefined;
let running: Running | undefined;
const watches: Watch[] = [];

/**
 * Arms the watchdog for this process: `GYRE_EXTENSION_STALL_MS` milliseconds (default 15000; `0`
 * turns it off). Starts nothing; `startStallWatchdog` does, once an extension is about to load.
 */
export function armStallWatchdog(env: NodeJS.ProcessEnv): void {
  const raw = env.GYRE_EXTENSION_STALL_MS;
  const value = raw === undefined || raw.trim() === "" ? DEFAULT_STALL_MS : Number(raw);
  stallMs = Number.isInteger(value) && value >= 0 ? value : DEFAULT_STALL_MS;
  if (stallMs === 0) stallMs = undefined;
}

/** Starts the worker if the process armed the watchdog and it is not running yet. Never throws. */
export async function startStallWatchdog(): Promise<void> {
  if (stallMs === undefined || running) return;
  const { Worker } = await import("node:worker_threads");
  if (running) return;
  const beats = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  const periodMs = Math.max(20, Math.min(1_000, Math.floor(stallMs / 5)));
  try {
    const worker = new Worker(workerSource, { eval: true, workerData: { beats, stallMs, periodMs } });
    worker.unref();
    // A worker that cannot start leaves gyre unwatched, as before; it never stops the run.
    worker.on("error", () => undefined);
    running = { beats, worker, names: new Map(), timer: undefined, periodMs };
  } catch {
    return;
  }
  (globalThis as Record<symbol, unknown>)[stallKey] = onStall;
}

/**
 * Marks a handler of the extension at `path` as running (`label`: the event or command) until the
 * returned function is called. A no-op while the watchdog is not running.
 */
export function watchExtension(path: string, label: string): () => void {
  const state = running;
  if (!state) return () => undefined;
  const key = `${path}\0${label}`;
  let who = state.names.get(key);
  if (who === undefined) {
    who = state.names.size + 1;
    state.names.set(key, who);
    state.worker.postMessage({ who, sentence: describeStall(path, label, stallMs ?? DEFAULT_STALL_MS) });
  }
  const watch: Watch = { path, label, who };
  watches.push(watch);
  Atomics.store(state.beats, WHO, who);
  if (watches.length === 1) {
    Atomics.add(state.beats, BEAT, 1);
    Atomics.store(state.beats, ACTIVE, 1);
    state.timer = setInterval(() => Atomics.add(state.beats, BEAT, 1), Math.max(10, state.periodMs >> 1));
    state.timer.unref();
  }
  return () => {
    const index = watches.indexOf(watch);
    if (index < 0) return;
    watches.splice(index, 1);
    const last = watches.at(-1);
    if (last) Atomics.store(state.beats, WHO, last.who);
    else {
      Atomics.store(state.beats, ACTIVE, 0);
      clearInterval(state.timer);
      state.timer = undefined;
    }
  };
}

/** The sentence for a stall, from the main thread or (the fallback) the worker. */
export function describeStall(path: string, label: string, ms: number): string {
  const what = label === "import" ? "while it was imported" : `in its "${label}" handler`;
  return `gyre: the extension ${path} kept gyre busy for ${(ms / 1000).toFixed(1)} s without a pause ${what} (a synchronous loop?), so gyre stopped (exit code ${STALL_EXIT_CODE}); the session file is intact: fix or remove the extension, then continue with gyre -c.`;
}

/**
 * Runs on the main thread, between two steps of the stuck handler (the worker asks V8 to run it
 * there): names the extension and exits, which runs gyre's exit handlers (lock, sandbox).
 */
function onStall(): void {
  const state = running;
  const watch = watches.at(-1);
  if (!state || !watch || stallMs === undefined) {
    // The loop moved on before the worker's request arrived: not a stall after all.
    if (state) Atomics.add(state.beats, BEAT, 1);
    return;
  }
  writeSync(2, `\n${describeStall(watch.path, watch.label, stallMs)}\n`);
  // Node adds a line about the worker's inspector session at exit; the sentence is the last word.
  process.once("exit", () => {
    try {
      closeSync(2);
    } catch {}
  });
  process.exit(STALL_EXIT_CODE);
}

/**
 * The worker: polls the beat; after the stall time without one while a handler runs, evaluates
 * the main thread's stall handler through the inspector (V8 runs it between two steps of a
 * loop). If that does not happen within two seconds (the thread is stuck in native code), it
 * writes the sentence itself and kills the process.
 */
const workerSource = `
const { workerData, parentPort } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { beats, stallMs, periodMs } = workerData;
const sentences = new Map();
parentPort.on("message", (m) => sentences.set(m.who, m.sentence));
let seen = Atomics.load(beats, ${BEAT});
let since = Date.now();
let asked = false;
setInterval(() => {
  const beat = Atomics.load(beats, ${BEAT});
  if (beat !== seen || Atomics.load(beats, ${ACTIVE}) === 0) {
    seen = beat;
    since = Date.now();
    asked = false;
    return;
  }
  if (asked || Date.now() - since < stallMs) return;
  asked = true;
  const askedAt = beat;
  try {
    const session = new (require("node:inspector").Session)();
    session.connectToMainThread();
    session.post("Runtime.evaluate", { expression: "globalThis[Symbol.for('gyre.extensionStall')]?.()" });
  } catch {}
  setTimeout(() => {
    if (Atomics.load(beats, ${BEAT}) !== askedAt) return;
    const sentence = sentences.get(Atomics.load(beats, ${WHO})) ?? "gyre: an extension kept gyre busy without a pause, so gyre stopped.";
    writeSync(2, "\\n" + sentence + "\\n");
    process.kill(process.pid, "SIGKILL");
  }, 2000);
}, periodMs);
`;
