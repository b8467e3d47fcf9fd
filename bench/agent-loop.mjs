// Loop overhead per turn: 1,000 tool-call turns with a trivial tool and an instant scripted model,
// for gyre's Agent and @mariozechner/pi-agent-core@0.73.1's Agent side by side in one run.
// Both models stream the same events (start, toolcall_start/delta/end, done) and finish in the same
// tick, so the time between turn starts is the loop's own cost. Pi is installed into
// <tmpdir>/gyre-bench-pi (never into the repo); if that fails, only gyre is measured.
//
//   node bench/agent-loop.mjs [--turns 1000] [--rounds 5]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const TURNS = argument("turns", 1000);
const ROUNDS = argument("rounds", 5);
const WINDOW = Math.min(100, Math.floor(TURNS / 4));
const PI_VERSION = "0.73.1";

const model = {
  id: "instant",
  name: "Instant scripted model",
  api: "bench",
  provider: "bench",
  baseUrl: "http://127.0.0.1:9",
  reasoning: false,
  input: ["text"],
  contextWindow: 1_000_000,
  maxTokens: 1000,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};
const usage = () => ({
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false };

/** The scripted reply of call `index`: a tool call, or the final text after `TURNS - 1` calls. */
function reply(index) {
  const base = { role: "assistant", api: model.api, provider: model.provider, model: model.id, usage: usage() };
  if (index >= TURNS - 1)
    return { ...base, content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: 0 };
  const toolCall = { type: "toolCall", id: `call_${index}`, name: "noop", arguments: { n: index } };
  return { ...base, content: [toolCall], stopReason: "toolUse", timestamp: 0 };
}

async function loadGyre() {
  const source = (path) => fileURLToPath(new URL(`../packages/${path}`, import.meta.url));
  const entries = { "@gyre/ai": source("ai/src/index.ts"), "@gyre/agent": source("agent/src/index.ts") };
  const dir = mkdtempSync(join(tmpdir(), "gyre-bench-bundle-"));
  const outfile = join(dir, "gyre.mjs");
  await build({
    stdin: {
      contents: 'export { Agent } from "@gyre/agent"; export { AssistantMessageEventStream } from "@gyre/ai";',
      resolveDir: fileURLToPath(new URL("..", import.meta.url)),
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    plugins: [
      {
        name: "gyre-sources",
        setup(builder) {
          builder.onResolve({ filter: /^@gyre\/(ai|agent)$/ }, (args) => ({ path: entries[args.path] }));
        },
      },
    ],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "warning",
  });
  const module = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return module;
}

function loadPi() {
  const dir = join(tmpdir(), "gyre-bench-pi");
  const entry = (name) => join(dir, "node_modules", "@mariozechner", name, "dist", "index.js");
  try {
    if (!existsSync(entry("pi-agent-core")) || !existsSync(entry("pi-ai"))) {
      mkdirSync(dir, { recursive: true });
      process.stderr.write(`installing @mariozechner/pi-agent-core@${PI_VERSION} into ${dir}…\n`);
      execFileSync(
        "npm",
        [
          "install",
          "--prefix",
          dir,
          "--no-audit",
          "--no-fund",
          `@mariozechner/pi-agent-core@${PI_VERSION}`,
          `@mariozechner/pi-ai@${PI_VERSION}`,
        ],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
    }
    return Promise.all([
      import(pathToFileURL(entry("pi-agent-core")).href),
      import(pathToFileURL(entry("pi-ai")).href),
    ]);
  } catch (error) {
    process.stderr.write(`could not install pi-agent-core (${error.message}); measuring gyre only\n`);
    return undefined;
  }
}

/** Runs one agent for TURNS turns; returns the milliseconds between consecutive turn starts. */
async function measure(createAgent) {
  const starts = [];
  const agent = createAgent();
  agent.subscribe((event) => {
    if (event.type === "turn_start") starts.push(performance.now());
  });
  const begin = performance.now();
  await agent.prompt("go");
  const end = performance.now();
  starts.push(end);
  if (starts.length !== TURNS + 1) throw new Error(`expected ${TURNS} turns, saw ${starts.length - 1}`);
  const gaps = starts.slice(1).map((time, index) => time - (starts[index] ?? begin));
  return { gaps, total: end - begin, messages: agent.state.messages.length };
}

function gyreAgent({ Agent, AssistantMessageEventStream }) {
  return () => {
    let calls = 0;
    const streamFn = () => {
      const message = reply(calls++);
      const stream = new AssistantMessageEventStream();
      stream.push({ type: "start", message: { ...message, content: [] } });
      pushBlocks(stream, message, (event) => event);
      stream.push({ type: "done", reason: message.stopReason, message });
      return stream;
    };
    const tool = {
      name: "noop",
      label: "noop",
      description: "Does nothing.",
      parameters: schema,
      execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
    };
    return new Agent({ model, tools: [tool], systemPrompt: "bench", streamFn });
  };
}

function piAgent([{ Agent }, { createAssistantMessageEventStream }]) {
  return () => {
    let calls = 0;
    const streamFn = () => {
      const message = reply(calls++);
      const stream = createAssistantMessageEventStream();
      const partial = { ...message, content: [] };
      stream.push({ type: "start", partial });
      pushBlocks(stream, message, (event) => ({ ...event, partial }));
      stream.push({ type: "done", reason: message.stopReason, message });
      return stream;
    };
    const tool = {
      name: "noop",
      label: "noop",
      description: "Does nothing.",
      parameters: schema,
      execute: async () => ({ content: [{ type: "text", text: "ok" }], details: undefined }),
    };
    return new Agent({ initialState: { systemPrompt: "bench", model, tools: [tool] }, streamFn });
  };
}

/** The same block events for both libraries (Pi's also carry `partial`). */
function pushBlocks(stream, message, decorate) {
  const [block] = message.content;
  if (block.type === "text") {
    stream.push(decorate({ type: "text_start", contentIndex: 0 }));
    stream.push(decorate({ type: "text_delta", contentIndex: 0, delta: block.text }));
    stream.push(decorate({ type: "text_end", contentIndex: 0, content: block.text }));
  } else {
    stream.push(decorate({ type: "toolcall_start", contentIndex: 0, id: block.id, name: block.name }));
    stream.push(decorate({ type: "toolcall_delta", contentIndex: 0, delta: JSON.stringify(block.arguments) }));
    stream.push(decorate({ type: "toolcall_end", contentIndex: 0, toolCall: block }));
  }
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.floor(p * (values.length - 1))];
const median = (values) => percentile(values, 0.5);
/** Mean without the slowest 2% of turns: those are scheduler and GC stalls when other work shares the CPU. */
const trimmedMean = (values) => {
  const kept = [...values].sort((a, b) => a - b).slice(0, Math.ceil(values.length * 0.98));
  return kept.reduce((sum, value) => sum + value, 0) / kept.length;
};
const us = (ms) => `${(ms * 1000).toFixed(1).padStart(7)} µs`;

const gyre = await loadGyre();
const pi = await loadPi();
const contenders = [["gyre", gyreAgent(gyre)], ...(pi ? [["pi-agent-core", piAgent(pi)]] : [])];
const results = new Map(contenders.map(([name]) => [name, []]));
for (const [, create] of contenders) await measure(create); // warm-up: JIT both before timing
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, create] of contenders) results.get(name).push(await measure(create));
}

console.log(
  `agent loop overhead per turn: ${TURNS} tool-call turns, instant model, trivial tool; node ${process.version}`,
);
console.log(
  `per-turn times: medians of the first/last 100 turns and of all turns, a mean without the slowest 2% (stalls), and the whole run; each the median of ${ROUNDS} rounds\n`,
);
const columns = ["first 100", "last 100", "last/first", "all turns", "trim mean", "run total"];
console.log(`${"".padEnd(15)}${columns.map((column) => column.padStart(12)).join("")}`);
const summary = new Map();
for (const [name, runs] of results) {
  const first = median(runs.map((run) => median(run.gaps.slice(0, WINDOW))));
  const last = median(runs.map((run) => median(run.gaps.slice(-WINDOW))));
  const all = median(runs.map((run) => median(run.gaps)));
  const trimmed = median(runs.map((run) => trimmedMean(run.gaps)));
  const total = median(runs.map((run) => run.total));
  summary.set(name, all);
  const cells = [us(first), us(last), `${(last / first).toFixed(2)}×`, us(all), us(trimmed), `${total.toFixed(1)} ms`];
  console.log(`${name.padEnd(15)}${cells.map((cell) => cell.padStart(12)).join("")}`);
}
if (summary.has("pi-agent-core")) {
  const ratio = summary.get("gyre") / summary.get("pi-agent-core");
  console.log(`\ngyre / pi-agent-core median per-turn time: ${ratio.toFixed(2)}× (below 1 means gyre is faster)`);
} else {
  console.log("\npi-agent-core could not be installed; only gyre was measured.");
}
