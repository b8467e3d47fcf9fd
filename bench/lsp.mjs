// What diagnostics add to an edit (issue 32): the edit tool on a TypeScript fixture with no
// language server, and wrapped with a warm typescript-language-server (started by a first, untimed
// edit) in the read-only sandbox sessions start it in (bubblewrap; unconfined when bwrap cannot
// run here), each edit flipping one literal so the server re-checks the file. Interleaved rounds.
// Then start-up with and without an `lsp` setting, interleaved: `gyre --version` and `gyre -p` to
// a fake model server (no edit, so no server starts). Targets: p50 ≤ 300 ms added per edit;
// start-up unchanged. Usage: node bench/lsp.mjs [--rounds 30] [--startup-rounds 15] (needs the bundle: npm run build)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents } from "./lib/agents.mjs";
import { importSources } from "./lib/import-sources.mjs";
import { parseOptions } from "./lib/item-main.mjs";
import { measureCommand } from "./lib/measure.mjs";
import { median, quantile } from "./lib/stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rounds = parseOptions().rounds ?? 30;
const startupRounds = parseOptions()["startup-rounds"] ?? 15;
const loadAtStart = loadavg()[0];
const require = createRequire(path.join(root, "packages/cli/package.json"));

/** A module of 200 small functions, so the server checks a file of some size. */
function fixture() {
  const lines = ["export const flag: number = 0;"];
  for (let index = 0; index < 200; index++)
    lines.push(`export function f${index}(value: number): string {`, "  return String(value + flag);", "}");
  return `${lines.join("\n")}\n`;
}

const work = mkdtempSync(path.join(tmpdir(), "gyre-bench-lsp-"));
const sides = ["plain", "lsp"];
const lsp = {
  typescript: {
    command: process.execPath,
    args: [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
    extensions: [".ts"],
    rootMarkers: ["tsconfig.json"],
    initializationOptions: { tsserver: { path: require.resolve("typescript/lib/tsserver.js") } },
    timeoutMs: 30_000,
  },
};
let attached;
let sandbox;
try {
  const { createCodingTools, attachLsp, createBashSandbox } = await importSources([
    'export { createCodingTools } from "./packages/cli/src/core/tools/index.ts";',
    'export { attachLsp } from "./packages/cli/src/core/lsp/lsp-tools.ts";',
    'export { createBashSandbox } from "./packages/cli/src/core/sandbox/bash-sandbox.ts";',
  ]);
  const edits = {};
  let confinement = "unconfined";
  for (const side of sides) {
    const dir = path.join(work, side);
    mkdirSync(dir);
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    writeFileSync(path.join(dir, "module.ts"), fixture());
    const tools = createCodingTools({ cwd: dir, tools: ["edit"] });
    if (side === "lsp") {
      const home = path.join(work, "home");
      mkdirSync(home);
      const policy = { cwd: dir, writableRoots: [], protectedPaths: [], denyRead: [], network: false };
      const hostEnv = process.env;
      sandbox = createBashSandbox({
        mode: "workspace-write",
        policy: { ...policy, gyreHome: home, homeDir: home, hostEnv, maxProcesses: 1024, maxMemoryMb: 8192 },
      });
      const available = await sandbox.availability();
      if (available?.available) confinement = "read-only sandbox (bwrap)";
      else sandbox = undefined;
      const safety = sandbox ? { sandbox } : undefined;
      attached = attachLsp(tools, { servers: lsp, cwd: dir, env: process.env, ...(safety ? { safety } : {}) });
    }
    edits[side] = (attached && side === "lsp" ? attached.tools : tools).find((tool) => tool.name === "edit");
  }
  const signal = new AbortController().signal;
  const times = { plain: [], lsp: [] };
  let timedOut = 0;
  // Round 0 starts the server and loads the project: not timed.
  for (let round = 0; round <= rounds; round++) {
    const [from, to] =
      round % 2 === 0 ? ["flag: number = 0", "flag: number = 1"] : ["flag: number = 1", "flag: number = 0"];
    for (const side of sides) {
      const started = performance.now();
      const result = await edits[side].execute(
        { path: "module.ts", edits: [{ oldText: from, newText: to }] },
        { toolCallId: `call-${round}`, signal },
      );
      const elapsed = performance.now() - started;
      const text = result.content.map((part) => part.text ?? "").join("");
      if (side === "lsp" && !text.includes("No new diagnostics.")) {
        timedOut += 1;
        if (process.env.DEBUG_LSP) console.error(text);
      }
      if (round > 0) times[side].push(elapsed);
    }
  }
  const p50 = { plain: quantile(times.plain, 0.5), lsp: quantile(times.lsp, 0.5) };
  const p95 = { plain: quantile(times.plain, 0.95), lsp: quantile(times.lsp, 0.95) };
  console.log(
    `lsp: ${rounds} edits per side (interleaved) of a 601-line TypeScript file, warm typescript-language-server, ${confinement}`,
  );
  console.log(`load average (1 min) at the start             ${loadAtStart.toFixed(1)}`);
  console.log(`edit, no server (p50 / p95 ms/edit)           ${p50.plain.toFixed(1)} / ${p95.plain.toFixed(1)}`);
  console.log(
    `edit + diagnostics (p50 / p90 / p95 ms/edit)  ${p50.lsp.toFixed(1)} / ${quantile(times.lsp, 0.9).toFixed(1)} / ${p95.lsp.toFixed(1)}`,
  );
  console.log(`added by diagnostics (p50 ms/edit)            ${(p50.lsp - p50.plain).toFixed(1)}  (target ≤ 300 ms)`);
  console.log(`added by diagnostics (p95 ms/edit)            ${(p95.lsp - p95.plain).toFixed(1)}`);
  console.log(`edits whose result was not "No new diagnostics" ${timedOut}`);
  await compareStartup();
  console.log(`load average (1 min) at the end               ${loadavg()[0].toFixed(1)}`);
} finally {
  await attached?.service.close();
  await sandbox?.dispose();
  rmSync(work, { recursive: true, force: true });
}

/** gyre's start-up without and with an `lsp` setting, interleaved; medians side by side. */
async function compareStartup() {
  const server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
  const sides = { without: createAgents({ serverUrl: server.url }), with: createAgents({ serverUrl: server.url }) };
  writeFileSync(path.join(sides.with.gyre([]).env.GYRE_HOME, "settings.json"), JSON.stringify({ lsp }));
  const commands = {
    version: (agents) => agents.gyre(["--version"], { model: false }),
    print: (agents) => agents.gyre(["-p", "hi"]),
  };
  const samples = { version: { without: [], with: [] }, print: { without: [], with: [] } };
  try {
    for (let round = 0; round < startupRounds; round++) {
      for (const [item, spec] of Object.entries(commands)) {
        for (const side of round % 2 === 0 ? ["without", "with"] : ["with", "without"]) {
          const { command, args, env, cwd } = spec(sides[side]);
          const result = await measureCommand(command, args, { cwd, env });
          if (result.code !== 0)
            throw new Error(`gyre ${args.join(" ")} exited ${result.code}: ${result.stderr.slice(0, 300)}`);
          samples[item][side].push(result.wallMs);
        }
      }
    }
  } finally {
    await server.close();
    for (const agents of Object.values(sides)) agents.cleanup();
  }
  console.log(`start-up, ${startupRounds} runs per side (interleaved)    without lsp / with lsp setting (median ms)`);
  for (const [item, label] of [
    ["version", "gyre --version"],
    ["print", "gyre -p (fake model, no edit)"],
  ]) {
    const { without, with: withLsp } = samples[item];
    console.log(`  ${label.padEnd(44)} ${median(without).toFixed(1)} / ${median(withLsp).toFixed(1)}`);
  }
}
