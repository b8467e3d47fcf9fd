// Terminal UI cost: bytes written to the terminal and CPU time while a 2,000-line answer streams
// into a session that already holds 500 messages, gyre next to Pi, both in tmux at 120x40.
// Bytes are counted with `tmux pipe-pane`; CPU is utime+stime of the agent's process (/proc).
// Usage: node bench/tui.mjs [--rounds 3] [--no-pi]   (run `node scripts/bundle.mjs` first)
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents, MODEL_ID } from "./lib/agents.mjs";
import { ensurePi } from "./lib/pi-install.mjs";
import { summarize } from "./lib/stats.mjs";
import { renderTable } from "./lib/table.mjs";

const argv = process.argv.slice(2);
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 3;
const withPi = !argv.includes("--no-pi");
const HISTORY = 500;
const END = "end-of-the-long-answer";
const answer = `${Array.from({ length: 2000 }, (_, line) => `Line ${line}: some *streamed* text with \`code\` ${"x".repeat(20)}`).join("\n")}\n${END}`;
const tmux = (...args) => execFileSync("tmux", args, { encoding: "utf8" });
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

/** One run: start in tmux, stream the answer, measure until output goes quiet after the end marker. */
async function measure(spec, readyMarker) {
  const name = `gyre-bench-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const env = Object.entries(spec.env)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(" ");
  const command = `exec env -i ${env} TERM=xterm-256color ${spec.command} ${spec.args.map((arg) => JSON.stringify(arg)).join(" ")}`;
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", spec.cwd, command);
  try {
    const screen = () => tmux("capture-pane", "-p", "-t", name);
    await waitFor(() => screen().includes(readyMarker), 30_000, `${readyMarker} on screen`);
    const log = join(spec.cwd, `pane-${name}.log`);
    tmux("pipe-pane", "-o", "-t", name, `cat >> '${log}'`);
    const pid = agentPid(name);
    const cpuBefore = cpuSeconds(pid);
    tmux("send-keys", "-t", name, "-l", "go");
    tmux("send-keys", "-t", name, "Enter");
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
    return { bytes: statSync(log).size, cpu: cpuSeconds(pid) - cpuBefore };
  } finally {
    tmux("kill-session", "-t", name);
  }
}

const server = await startFakeModelServer({ respond: () => ({ text: answer, chunkSize: 64 }) });
const pi = withPi ? await ensurePi() : { ok: false, reason: "--no-pi" };
const agents = createAgents({ serverUrl: server.url, piCli: pi.ok ? pi.cli : undefined });
const results = { gyre: { bytes: [], cpu: [] }, pi: { bytes: [], cpu: [] } };
try {
  for (let round = 0; round < rounds; round++) {
    const gyreSession = join(agents.workspace, `gyre-${round}.jsonl`);
    writeSession(gyreSession, agents.workspace, 1);
    const gyre = await measure(agents.gyre(["--session", gyreSession]), "thinking off");
    results.gyre.bytes.push(gyre.bytes);
    results.gyre.cpu.push(gyre.cpu);
    if (agents.pi) {
      const piSession = join(agents.workspace, `pi-${round}.jsonl`);
      writeSession(piSession, agents.workspace, 3);
      const piRun = await measure(agents.pi(["--session", piSession]), MODEL_ID);
      results.pi.bytes.push(piRun.bytes);
      results.pi.cpu.push(piRun.cpu);
    }
  }
} finally {
  agents.cleanup();
  await server.close();
}

const side = (values, scale = 1) => (values.length ? summarize(values.map((value) => value / scale)) : undefined);
const note = agents.pi ? `${rounds} rounds, ${HISTORY}-message session, 2,000-line answer` : `Pi not run: ${pi.reason}`;
console.log(
  renderTable([
    {
      item: "TUI: terminal bytes, 2,000-line answer",
      unit: "KB",
      gyre: side(results.gyre.bytes, 1024),
      pi: side(results.pi.bytes, 1024),
      note,
    },
    { item: "TUI: CPU time for the same", unit: "s", gyre: side(results.gyre.cpu), pi: side(results.pi.cpu), note },
  ]),
);
