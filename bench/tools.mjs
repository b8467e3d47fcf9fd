// Coding-tool overheads, side by side with what a user would run by hand:
//   bash tool per call vs a bare `bash -c` spawn of the same command (median of N calls);
//   grep tool on a generated 5,000-file tree vs plain `rg` with the same pattern.
//   read tool on a 100 MB file (first page) vs `head -n 2000`, with the process's RSS growth.
// Targets (issue #4): bash overhead < 15 ms/call; grep within 1.3x of raw rg.
// Usage: node bench/tools.mjs [--iterations 200] [--files 5000]
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rgPath } from "@vscode/ripgrep";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(argv[index + 1]);
};
const iterations = option("iterations", 200);
const fileCount = option("files", 5000);
const grepRuns = option("grep-runs", 20);

/** Bundles the tools into a temp file inside node_modules/.cache so @vscode/ripgrep still resolves. */
async function loadTools() {
  const outDir = await mkdtemp(path.join(root, "node_modules", ".cache-gyre-bench-"));
  const outfile = path.join(outDir, "tools.mjs");
  await build({
    entryPoints: [path.join(root, "packages/cli/src/core/tools/index.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["@vscode/ripgrep"],
    outfile,
    logLevel: "error",
  });
  const tools = await import(pathToFileURL(outfile).href);
  return { tools, cleanup: () => rm(outDir, { recursive: true, force: true }) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs `file args` in `cwd`, collecting stdout; resolves with its byte count when it closes. */
function spawnCollect(file, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => {
      bytes += chunk.length;
    });
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", () => resolve(bytes));
  });
}

const context = () => ({ toolCallId: "bench", signal: new AbortController().signal });

async function benchBash(tools, cwd) {
  const bash = tools.createBashTool({ cwd });
  const toolTimes = [];
  const bareTimes = [];
  for (let index = 0; index < 10; index++) {
    await bash.execute({ command: "true" }, context());
    await spawnCollect("bash", ["-c", "true"], cwd);
  }
  // Interleaved so machine noise hits both sides alike.
  for (let index = 0; index < iterations; index++) {
    let started = performance.now();
    await bash.execute({ command: "true" }, context());
    toolTimes.push(performance.now() - started);
    started = performance.now();
    await spawnCollect("bash", ["-c", "true"], cwd);
    bareTimes.push(performance.now() - started);
  }
  return { tool: median(toolTimes), bare: median(bareTimes) };
}

async function createTree(dir) {
  const perDir = 100;
  for (let dirIndex = 0; dirIndex * perDir < fileCount; dirIndex++) {
    const sub = path.join(dir, `pkg${dirIndex}`, "src");
    await mkdir(sub, { recursive: true });
    const writes = [];
    for (let fileIndex = 0; fileIndex < perDir && dirIndex * perDir + fileIndex < fileCount; fileIndex++) {
      const number = dirIndex * perDir + fileIndex;
      const lines = Array.from(
        { length: 60 },
        (_, line) => `export const value${line} = compute(${number}, ${line}); // filler text`,
      );
      if (number % 25 === 0) lines.push(`const marker = "needleToken${number}";`);
      writes.push(writeFile(path.join(sub, `file${fileIndex}.ts`), `${lines.join("\n")}\n`));
    }
    await Promise.all(writes);
  }
}

async function benchGrep(tools, dir) {
  const grep = tools.createGrepTool({ cwd: dir, rgPath });
  const pattern = "needleToken\\d+";
  const check = await grep.execute({ pattern, limit: 10_000 }, context());
  const matches = check.details.matchCount;
  const toolTimes = [];
  const rawTimes = [];
  for (let index = 0; index < 3; index++) {
    await grep.execute({ pattern, limit: 10_000 }, context());
    await spawnCollect(rgPath, ["-n", "-e", pattern], dir);
  }
  for (let index = 0; index < grepRuns; index++) {
    let started = performance.now();
    await grep.execute({ pattern, limit: 10_000 }, context());
    toolTimes.push(performance.now() - started);
    started = performance.now();
    await spawnCollect(rgPath, ["-n", "-e", pattern], dir);
    rawTimes.push(performance.now() - started);
  }
  return { tool: median(toolTimes), raw: median(rawTimes), matches };
}

/** Reads the first page of a 100 MB text file with the read tool, next to `head -n 2000`. */
async function benchRead(tools, dir) {
  const file = path.join(dir, "big.txt");
  const line = `${"x".repeat(99)}\n`;
  const block = line.repeat(10_000);
  await writeFile(file, "");
  const { appendFile } = await import("node:fs/promises");
  for (let written = 0; written < 100 * 1024 * 1024; written += block.length) await appendFile(file, block);
  const read = tools.createReadTool({ cwd: dir });
  const toolTimes = [];
  const headTimes = [];
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  for (let index = 0; index < 5; index++) {
    let started = performance.now();
    await read.execute({ path: "big.txt" }, context());
    toolTimes.push(performance.now() - started);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    started = performance.now();
    await spawnCollect("head", ["-n", "2000", file], dir);
    headTimes.push(performance.now() - started);
  }
  return { tool: median(toolTimes), head: median(headTimes), rssGrowthMb: (rssPeak - rssBefore) / 1024 / 1024 };
}

const { tools, cleanup } = await loadTools();
const work = await mkdtemp(path.join(tmpdir(), "gyre-bench-tools-"));
try {
  const bash = await benchBash(tools, work);
  const tree = path.join(work, "tree");
  await createTree(tree);
  const grep = await benchGrep(tools, tree);
  const read = await benchRead(tools, work);
  const overhead = bash.tool - bash.bare;
  const ratio = grep.tool / grep.raw;
  const rows = [
    ["case", "gyre tool", "baseline", "difference", "target", "ok"],
    [
      "bash `true` (median ms/call)",
      bash.tool.toFixed(2),
      `${bash.bare.toFixed(2)} (bash -c)`,
      `+${overhead.toFixed(2)} ms`,
      "< 15 ms",
      overhead < 15 ? "yes" : "NO",
    ],
    [
      `grep ${fileCount} files, ${grep.matches} matches (median ms)`,
      grep.tool.toFixed(1),
      `${grep.raw.toFixed(1)} (rg)`,
      `${ratio.toFixed(2)}x`,
      "<= 1.3x",
      ratio <= 1.3 ? "yes" : "NO",
    ],
    [
      "read 100 MB file, first page (median ms)",
      read.tool.toFixed(1),
      `${read.head.toFixed(1)} (head -n 2000)`,
      `+${read.rssGrowthMb.toFixed(0)} MiB RSS`,
      "bounded memory",
      read.rssGrowthMb < 64 ? "yes" : "NO",
    ],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join("  "));
  console.log(`(${iterations} bash calls, ${grepRuns} grep runs, node ${process.version})`);
} finally {
  await rm(work, { recursive: true, force: true });
  await cleanup();
}
