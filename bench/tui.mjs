// Terminal UI figures, gyre next to Pi 1.6.0, both on the same Node 24 in tmux at 120x40, each
// resuming a session that already holds 500 messages:
// - first paint: tmux starts the agent → its ready marker is on the screen;
// - keystroke → screen: while a 2,000-line answer streams (paced, one token per ~1 ms), a key is
//   sent with `tmux send-keys` and the screen polled until the editor shows it;
// - terminal bytes (`tmux pipe-pane`) and CPU (utime+stime from /proc) for the whole answer, and
//   CPU per streamed token (one SSE delta; the keystrokes are part of the run).
// Usage: node bench/tui.mjs [--rounds 3] [--no-pi] [--interval-ms 1] [--keep-logs DIR]   (run `node scripts/bundle.mjs` first)
// --keep-logs copies each run's terminal output (what `tmux pipe-pane` saw) into DIR, to see what the bytes are.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAgents, MODEL_ID } from "./lib/agents.mjs";
import { now } from "./lib/measure.mjs";
import { startPacedSseServer } from "./lib/paced-sse-server.mjs";
import { ensurePiLatest, NODE_LTS_VERSION } from "./lib/pi-install.mjs";
import { quantile, summarize } from "./lib/stats.mjs";
import { renderTable } from "./lib/table.mjs";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 3;
const withPi = !argv.includes("--no-pi");
const intervalMs = argv.includes("--interval-ms") ? Number(argv[argv.indexOf("--interval-ms") + 1]) : 1;
const keepLogs = argv.includes("--keep-logs") ? argv[argv.indexOf("--keep-logs") + 1] : undefined;
const HISTORY = 500;
const END = "end-of-the-long-answer";
const answer = `${Array.from({ length: 2000 }, (_, line) => `Line ${line}: some *streamed* text with \`code\` ${"x".repeat(20)}`).join("\n")}\n${END}`;
/** The answer as SSE deltas of 32 characters (about 3,900), one every ~1 ms: a fast model, not an instant one. */
const TOKENS = answer.match(/[\s\S]{1,32}/g);
const KEYS = "qzjxkvwqzjxkvw";
const KEYSTROKE_GAP_MS = 150;
// A tmux server of our own: other tmux users on the machine (tests ending their server) cannot end ours.
const SOCKET = `gyre-bench-tui-${process.pid}`;
const tmux = (...args) => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** A session file of `HISTORY` alternating messages; gyre reads version 1, Pi version 3, same entry shape. */
function writeSession(path, cwd, version) {
  const timestamp = new Date().toISOString();
  const usage = {
    input: 10,
    output: 10,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 20,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const lines = [JSON.stringify({ type: "session", version, id: randomUUID(), timestamp, cwd })];
  let parentId = null;
  for (let index = 0; index < HISTORY; index++) {
    const id = index.toString(16).padStart(8, "0");
    const message =
      index % 2 === 0
        ? { role: "user", content: `question ${index}`, timestamp: Date.now() }
        : {
            role: "assistant",
            content: [{ type: "text", text: `Answer ${index}.\n\n- one\n- two\n\nDone.` }],
            api: "openai-completions",
            provider: "openai",
            model: MODEL_ID,
            usage,
            stopReason: "stop",
            timestamp: Date.now(),
          };
    lines.push(JSON.stringify({ type: "message", id, parentId, timestamp, message }));
    parentId = id;
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
};

/** The agent's process: the pane's own. */
function agentPid(name) {
  // The command is exec'd, so the pane's process is the agent itself (whatever it calls itself).
  return tmux("display", "-p", "-t", name, "#{pane_pid}").trim();
}

async function waitFor(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Polls `check` every few ms; resolves with the time it first held (`now()`), throws after `timeoutMs`. */
async function pollUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return now();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Keys typed one at a time while the answer streams; each latency is send-keys → the typed text on
 * screen. Only keys whose echo arrived before the answer ended count.
 */
async function keystrokeLatencies(name, screen) {
  const latencies = [];
  let typed = "";
  for (const key of KEYS) {
    if (screen().includes(END)) break;
    typed += key;
    const sent = now();
    tmux("send-keys", "-t", name, "-l", key);
    const shown = await pollUntil(() => screen().includes(typed), 10_000, `"${typed}" in the editor`);
    if (!screen().includes(END)) latencies.push(shown - sent);
    await new Promise((resolve) => setTimeout(resolve, KEYSTROKE_GAP_MS));
  }
  return latencies;
}

/** One run: start in tmux, stream the answer, measure until output goes quiet after the end marker. */
async function measure(spec, readyMarker, label) {
  const name = `gyre-bench-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const started = startInTmux(spec, name);
  try {
    const screen = () => tmux("capture-pane", "-p", "-t", name);
    const painted = await pollUntil(() => screen().includes(readyMarker), 30_000, `${readyMarker} on screen`);
    const log = join(spec.cwd, `pane-${name}.log`);
    tmux("pipe-pane", "-o", "-t", name, `cat >> '${log}'`);
    const pid = agentPid(name);
    const cpuBefore = cpuSeconds(pid);
    tmux("send-keys", "-t", name, "-l", "go");
    tmux("send-keys", "-t", name, "Enter");
    await pollUntil(() => /Line \d+:|end-of-the-long/.test(screen()), 60_000, "the answer to start");
    const latencies = await keystrokeLatencies(name, screen);
    await waitFor(() => screen().includes(END), 120_000, "the end of the answer");
    // Done when the terminal has been quiet for a second (status lines and footer settle).
    let last = -1;
    await waitFor(
      () => {
        const size = existsSync(log) ? statSync(log).size : 0;
        const quiet = size === last;
        last = size;
        return quiet;
      },
      60_000,
      "quiet output",
    );
    const cpu = cpuSeconds(pid) - cpuBefore;
    if (keepLogs) {
      mkdirSync(keepLogs, { recursive: true });
      copyFileSync(log, join(keepLogs, `${label}.log`));
    }
    return { firstPaint: painted - started, latencies, bytes: statSync(log).size, cpu };
  } finally {
    tmux("kill-session", "-t", name);
  }
}

/** Starts `spec` as the only process of a new 120x40 tmux session `name`; returns when it was started. */
function startInTmux(spec, name) {
  const env = Object.entries(spec.env)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(" ");
  const command = `exec env -i ${env} TERM=xterm-256color ${spec.command} ${spec.args.map((arg) => JSON.stringify(arg)).join(" ")}`;
  const started = now();
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", spec.cwd, command);
  return started;
}

/** tmux starts the agent in a new, empty session → its ready marker is on the screen. */
async function freshFirstPaint(spec, readyMarker) {
  const name = `gyre-bench-paint-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const started = startInTmux(spec, name);
  try {
    return (
      (await pollUntil(() => tmux("capture-pane", "-p", "-t", name).includes(readyMarker), 30_000, readyMarker)) -
      started
    );
  } finally {
    tmux("kill-session", "-t", name);
  }
}

const server = await startPacedSseServer();
server.setPlan({ tokens: TOKENS, intervalMs });
const pi = withPi ? await ensurePiLatest() : { ok: false, reason: "--no-pi" };
// Both on Pi's Node 24 when it is there, so the figures compare the tools and not the runtimes.
const agents = createAgents({
  serverUrl: server.url,
  piCli: pi.ok ? pi.cli : undefined,
  ...(pi.ok ? { node: pi.node } : {}),
});
const empty = () => ({ freshPaint: [], firstPaint: [], latencies: [], bytes: [], cpu: [] });
const results = { gyre: empty(), pi: empty() };
const record = (side, run) => {
  side.firstPaint.push(run.firstPaint);
  side.latencies.push(...run.latencies);
  side.bytes.push(run.bytes);
  side.cpu.push(run.cpu);
};
try {
  for (let round = 0; round < rounds; round++) {
    results.gyre.freshPaint.push(await freshFirstPaint(agents.gyre(["--no-session"]), "thinking off"));
    if (agents.pi) results.pi.freshPaint.push(await freshFirstPaint(agents.pi(["--no-session"]), MODEL_ID));
    const gyreSession = join(agents.workspace, `gyre-${round}.jsonl`);
    writeSession(gyreSession, agents.workspace, 1);
    record(results.gyre, await measure(agents.gyre(["--session", gyreSession]), "thinking off", `gyre-${round}`));
    if (agents.pi) {
      const piSession = join(agents.workspace, `pi-${round}.jsonl`);
      writeSession(piSession, agents.workspace, 3);
      record(results.pi, await measure(agents.pi(["--session", piSession]), MODEL_ID, `pi-${round}`));
    }
  }
} finally {
  agents.cleanup();
  await server.close();
}

const side = (values, scale = 1) => (values.length ? summarize(values.map((value) => value / scale)) : undefined);
const p95 = (values) => (values.length ? { median: quantile(values, 0.95) } : undefined);
const node = pi.ok ? `both on Node ${NODE_LTS_VERSION}` : `Node ${process.version}`;
const runs = `${rounds} rounds, ${HISTORY}-message session, ${node}`;
const note = agents.pi ? runs : `${runs}; Pi not run: ${pi.reason}`;
const perToken = (cpu) => cpu.map((seconds) => (seconds * 1e6) / TOKENS.length);
console.log(
  renderTable([
    {
      item: "TUI: first paint, new session",
      unit: "ms",
      gyre: side(results.gyre.freshPaint),
      pi: side(results.pi.freshPaint),
      note: "tmux new-session → ready marker (gyre: footer, Pi: model name)",
    },
    {
      item: "TUI: first paint, 500-message session",
      unit: "ms",
      gyre: side(results.gyre.firstPaint),
      pi: side(results.pi.firstPaint),
      note,
    },
    {
      item: "TUI: keystroke → screen while streaming, median",
      unit: "ms",
      gyre: side(results.gyre.latencies),
      pi: side(results.pi.latencies),
      note: `${results.gyre.latencies.length} / ${results.pi.latencies.length} keys, tmux send-keys → capture-pane`,
    },
    {
      item: "TUI: keystroke → screen while streaming, p95",
      unit: "ms",
      gyre: p95(results.gyre.latencies),
      pi: p95(results.pi.latencies),
    },
    {
      item: "TUI: terminal bytes, 2,000-line answer",
      unit: "KB",
      gyre: side(results.gyre.bytes, 1024),
      pi: side(results.pi.bytes, 1024),
      note,
    },
    { item: "TUI: CPU time for the same", unit: "s", gyre: side(results.gyre.cpu), pi: side(results.pi.cpu), note },
    {
      item: "TUI: CPU per streamed token",
      unit: "µs",
      gyre: side(perToken(results.gyre.cpu)),
      pi: side(perToken(results.pi.cpu)),
      note: `${TOKENS.length} SSE deltas of 32 characters, ${intervalMs} ms apart`,
    },
  ]),
);
