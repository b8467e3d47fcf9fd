// Subagents and the governor (issue 18): what an in-process subagent spawn costs on top of the
// model call itself, and what the loop detector costs per turn.
//   spawn: the task tool runs a one-turn subagent on the instant faux model; the same one-turn
//   Agent run without the task tool is the baseline, so the difference is gyre's own overhead
//   (definition lookup, tool selection, the slot, the budget, events, the account line).
//   loop detector: observeTurn over a long run of varied tool calls (no verdict fires), per turn.
//   node bench/subagents.mjs [--rounds 5] [--spawns 200] [--turns 5000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { isMain, runStandalone } from "./lib/item-main.mjs";
import { summarize } from "./lib/stats.mjs";

const EXPORTS = `
export { Agent } from "@gyre/agent";
export { createEmptyUsage } from "@gyre/ai";
export { createFauxModel } from "@gyre/ai/testing";
export { createSubagentTree, createTaskTool } from "./packages/cli/src/core/subagents/task-tool.ts";
export { createTreeBudget } from "./packages/cli/src/core/subagents/tree-budget.ts";
export { BUILT_IN_AGENTS } from "./packages/cli/src/core/subagents/agent-definitions.ts";
export { createLoopDetector } from "./packages/cli/src/core/governor/loop-detector.ts";
`;

/** Bundles the sources (not a stale dist) into a temp module and imports it. */
async function loadGyre() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const source = (path) => join(root, "packages", path);
  const entries = {
    "@gyre/ai": source("ai/src/index.ts"),
    "@gyre/ai/testing": source("ai/src/testing.ts"),
    "@gyre/agent": source("agent/src/index.ts"),
  };
  const dir = mkdtempSync(join(tmpdir(), "gyre-bench-subagents-"));
  const outfile = join(dir, "gyre.mjs");
  await build({
    stdin: { contents: EXPORTS, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    plugins: [
      {
        name: "gyre-sources",
        setup(builder) {
          builder.onResolve({ filter: /^@gyre\/(ai|agent)(\/testing)?$/ }, (args) => ({ path: entries[args.path] }));
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

const WARM_UP = 20;
const answer = { content: [{ type: "text", text: "done" }] };

/** µs per one-turn run: through the task tool (`spawn`) or as a bare Agent (`bare`). */
async function timeRuns(gyre, spawns, through) {
  const child = gyre.createFauxModel([answer], { whenExhausted: "repeat-last" });
  const tree = gyre.createSubagentTree(gyre.createTreeBudget(), { maxSpawns: spawns + WARM_UP });
  const task = gyre.createTaskTool({
    definitions: gyre.BUILT_IN_AGENTS,
    tools: () => [],
    model: () => child.model,
    tree,
    onEvent: () => {},
  });
  const signal = new AbortController().signal;
  const once =
    through === "spawn"
      ? (n) => task.execute({ description: "part", prompt: `part ${n}` }, { toolCallId: `call-${n}`, signal })
      : (n) => new gyre.Agent({ model: child.model, systemPrompt: "s", tools: [] }).prompt(`part ${n}`);
  for (let n = 0; n < WARM_UP; n++) await once(n);
  const started = performance.now();
  for (let n = 0; n < spawns; n++) await once(n);
  return ((performance.now() - started) * 1000) / spawns;
}

function turnOf(gyre, n) {
  const name = ["read", "grep", "edit", "bash"][n % 4];
  const args = { path: `src/file-${n % 97}.ts`, pattern: `p${n}` };
  const message = {
    role: "assistant",
    content: [
      { type: "text", text: `step ${n}: looking at file ${n % 97}` },
      { type: "toolCall", id: `c${n}`, name, arguments: args },
    ],
    api: "faux",
    provider: "faux",
    model: "m",
    usage: gyre.createEmptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  };
  const result = {
    role: "toolResult",
    toolCallId: `c${n}`,
    toolName: name,
    content: [{ type: "text", text: `${"line of output\n".repeat(20)}${n}` }],
    isError: false,
    timestamp: 0,
  };
  return { message, results: [result] };
}

/** µs per observeTurn over `turns` varied turns; throws if a verdict fires (it must not here). */
function timeDetector(gyre, turns) {
  const prepared = Array.from({ length: turns }, (_, n) => turnOf(gyre, n));
  const detector = gyre.createLoopDetector();
  const started = performance.now();
  for (const { message, results } of prepared) {
    const verdict = detector.observeTurn(message, results);
    if (verdict.action !== "continue") throw new Error(`the loop detector fired on varied calls: ${verdict.message}`);
  }
  return ((performance.now() - started) * 1000) / turns;
}

/** Measures the subagent items; resolves to table rows. */
export async function run({ rounds = 5, spawns = 200, turns = 5000, log = () => {} }) {
  log(`subagents: ${spawns} spawns and ${turns} detector turns, ${rounds} rounds`);
  const gyre = await loadGyre();
  const spawn = [];
  const bare = [];
  const overhead = [];
  const detector = [];
  for (let round = 0; round < rounds; round++) {
    const viaTask = await timeRuns(gyre, spawns, "spawn");
    const alone = await timeRuns(gyre, spawns, "bare");
    spawn.push(viaTask);
    bare.push(alone);
    overhead.push(viaTask - alone);
    detector.push(timeDetector(gyre, turns));
  }
  return [
    {
      item: "subagent spawn (in-process, one-turn, instant model)",
      unit: "µs",
      gyre: summarize(spawn),
      note: `the task tool end to end; the same run as a bare Agent: ${summarize(bare)?.median.toFixed(0)} µs`,
    },
    {
      item: "subagent spawn overhead over a bare Agent run",
      unit: "µs",
      gyre: summarize(overhead),
      note: "task tool − bare Agent, same faux model; the per-spawn cost gyre adds",
    },
    {
      item: `loop detector per turn (${turns} varied turns)`,
      unit: "µs",
      gyre: summarize(detector),
      note: "observeTurn with one tool call and a 20-line result; no verdict fires",
    },
  ];
}

if (isMain(import.meta.url)) await runStandalone(run);
