// `npm run bench [-- item...] [--rounds N] [--no-build]`: gyre against Pi on this machine, one table.
// Items: startup, loop, streaming, subagents (here), sessions, tools, checkpoints, hooks, lsp, sandbox, providers, tui, mcp, acp, fleet (their own scripts, spawned).
// Pi 1.6.0 and Node 24 go into bench/.cache (git-ignored); Pi 0.73.1, for the items that load its
// libraries, into the OS temp dir (bench/lib/pi-install.mjs). npm test never needs either.
// The table goes to stdout and bench/results/latest.md; the exit code is 0 even when a target is
// missed, because benchmarks inform and tests decide. Only a broken set-up exits non-zero.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXTERNAL_ITEMS } from "./lib/external.mjs";
import { parseOptions } from "./lib/item-main.mjs";
import { ensurePi, ensurePiLatest, NODE_LTS_VERSION, PI_LATEST_VERSION, PI_VERSION } from "./lib/pi-install.mjs";
import { renderTable } from "./lib/table.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const OWN_ITEMS = {
  startup: "./startup.mjs",
  loop: "./loop.mjs",
  streaming: "./streaming.mjs",
  subagents: "./subagents.mjs",
};
const ORDER = [
  "startup",
  "loop",
  "loop-in-process",
  "streaming",
  "sessions",
  "tools",
  "checkpoints",
  "hooks",
  "lsp",
  "sandbox",
  "providers",
  "tui",
  "mcp",
  "acp",
  "subagents",
  "fleet",
];
const ALIASES = { loop: ["loop", "loop-in-process"], providers: ["providers"], sse: ["providers"] };
const EXTERNAL_TIMEOUT_MS = 15 * 60_000;

const argv = process.argv.slice(2);
const names = argv.filter((arg, at) => !arg.startsWith("--") && !argv[at - 1]?.startsWith("--rounds"));
const options = parseOptions(argv);
const unknown = names.filter((name) => !ORDER.includes(name) && !ALIASES[name]);
if (unknown.length > 0) {
  console.error(`unknown item ${unknown.join(", ")}: choose from ${ORDER.join(", ")}`);
  process.exit(2);
}
const selected =
  names.length === 0 ? ORDER : ORDER.filter((item) => names.some((name) => (ALIASES[name] ?? [name]).includes(item)));
const log = (line) => console.error(`[bench] ${line}`);

/** Newest mtime of any file under `dir` (skipping node_modules and dist). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Rebuilds what the items run when the sources are newer, so we never time a stale build. */
function build(notes) {
  if (options.build === false || argv.includes("--no-build")) return;
  const bundle = join(root, "packages/cli/dist/gyre.js");
  const sources = Math.max(...["ai", "agent", "cli"].map((name) => newest(join(root, "packages", name, "src"))));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < sources) {
    log("bundling the CLI (sources are newer than packages/cli/dist/gyre.js)");
    const result = spawnSync(process.execPath, ["scripts/bundle.mjs"], { cwd: root, encoding: "utf8" });
    if (result.status !== 0)
      notes.push(`bundling failed, measured the existing bundle: ${result.stderr.trim().split("\n")[0]}`);
  }
  if (selected.includes("providers")) {
    const result = spawnSync("npx", ["tsc", "-b", "packages/ai"], { cwd: root, encoding: "utf8" });
    if (result.status !== 0)
      notes.push(`tsc -b packages/ai failed: ${(result.stdout || result.stderr).trim().split("\n")[0]}`);
  }
}

/** Spawns another bench script and keeps everything it prints. */
function runScript(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), EXTERNAL_TIMEOUT_MS);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, output });
    });
  });
}

async function runExternal(name, raw) {
  const { script, args, parse, needs } = EXTERNAL_ITEMS[name];
  if (!existsSync(join(root, script))) return [{ item: name, note: `${script} not written yet: skipped` }];
  if (needs && !existsSync(join(root, needs))) return [{ item: name, note: `${needs} missing: skipped` }];
  log(`${name}: node ${script} ${args.join(" ")}`);
  const { code, output } = await runScript(script, args);
  raw.push({ script, code, output });
  const rows = code === 0 ? parse(output) : [];
  if (rows.length > 0) return rows;
  const why = code === 0 ? "no figures recognised in its output" : `exited ${code}`;
  return [{ item: name, note: `see ${script} (${why}; raw output in bench/results/latest.md)` }];
}

async function runOwn(name, pi, piLatest) {
  const module = await import(OWN_ITEMS[name]);
  const rounds = typeof options.rounds === "number" ? { rounds: options.rounds } : {};
  return module.run({ pi: pi.ok ? pi : undefined, piLatest: piLatest.ok ? piLatest : undefined, log, ...rounds });
}

const notes = [];
build(notes);
const pi = await ensurePi();
if (!pi.ok) notes.push(`${pi.reason}; Pi ${PI_VERSION} columns are empty`);
const piLatest = await ensurePiLatest();
if (!piLatest.ok) notes.push(`${piLatest.reason}; start-up, loop and sessions compare with Pi ${PI_VERSION}`);
const loadBefore = loadavg()[0];
const started = Date.now();
const rows = [];
const raw = [];
for (const name of selected) {
  try {
    rows.push(...(OWN_ITEMS[name] ? await runOwn(name, pi, piLatest) : await runExternal(name, raw)));
  } catch (error) {
    rows.push({
      item: name,
      note: `failed: ${String(error.message ?? error)
        .split("\n")[0]
        .slice(0, 300)}`,
    });
  }
}
const table = renderTable(rows);
const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
const header = [
  `# gyre vs Pi ${PI_LATEST_VERSION}: ${new Date().toISOString()}`,
  "",
  `gyre ${commit || "?"}; node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}; ` +
    `load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  `Items: ${selected.join(", ")}.`,
  `start-up, loop, sessions and tui: gyre and Pi ${PI_LATEST_VERSION} both on Node ${NODE_LTS_VERSION} (start-up also on this Node);` +
    ` loop-in-process and providers keep Pi ${PI_VERSION}, whose libraries they load (history).`,
  "Ratio = gyre ÷ Pi of the medians (below 1: gyre is smaller/faster; for MB/s above 1 is better).",
  ...notes.map((note) => `Note: ${note}`),
  "",
].join("\n");
console.log(`\n${header}\n${table}`);
mkdirSync(join(root, "bench/results"), { recursive: true });
const details = raw.map(
  ({ script, code, output }) =>
    `\n<details><summary>${script} (exit ${code})</summary>\n\n\`\`\`\n${output.trim()}\n\`\`\`\n</details>`,
);
writeFileSync(join(root, "bench/results/latest.md"), `${header}\n${table}\n${details.join("\n")}\n`);
log("written to bench/results/latest.md");
