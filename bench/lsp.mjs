// What diagnostics add to an edit (issue 32): the edit tool on a TypeScript fixture with no
// language server, and wrapped with a warm typescript-language-server (started by a first, untimed
// edit), each edit flipping one literal so the server re-checks the file. Interleaved rounds.
// Target: p50 ≤ 300 ms added per edit. Usage: node bench/lsp.mjs [--rounds 30]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { importSources } from "./lib/import-sources.mjs";
import { parseOptions } from "./lib/item-main.mjs";
import { quantile } from "./lib/stats.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rounds = parseOptions().rounds ?? 30;
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
try {
  const { createCodingTools, attachLsp } = await importSources([
    'export { createCodingTools } from "./packages/cli/src/core/tools/index.ts";',
    'export { attachLsp } from "./packages/cli/src/core/lsp/lsp-tools.ts";',
  ]);
  const edits = {};
  for (const side of sides) {
    const dir = path.join(work, side);
    mkdirSync(dir);
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    writeFileSync(path.join(dir, "module.ts"), fixture());
    const tools = createCodingTools({ cwd: dir, tools: ["edit"] });
    if (side === "lsp") attached = attachLsp(tools, { servers: lsp, cwd: dir, env: process.env });
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
  console.log(
    `lsp: ${rounds} edits per side (interleaved) of a 601-line TypeScript file, warm typescript-language-server`,
  );
  console.log(`edit, no server (p50 ms/edit)                 ${p50.plain.toFixed(1)}`);
  console.log(`edit + diagnostics (p50 ms/edit)              ${p50.lsp.toFixed(1)}`);
  console.log(`edit + diagnostics (p90 ms/edit)              ${quantile(times.lsp, 0.9).toFixed(1)}`);
  console.log(`added by diagnostics (p50 ms/edit)            ${(p50.lsp - p50.plain).toFixed(1)}  (target ≤ 300 ms)`);
  console.log(`edits whose result was not "No new diagnostics" ${timedOut}`);
  console.log(`load average (1 min) at the end               ${loadavg()[0].toFixed(1)}`);
} finally {
  await attached?.service.close();
  rmSync(work, { recursive: true, force: true });
}
