// Checkpoint snapshot time (issue 17): a 10,000-file workspace, one small change per round.
//   gyre, full scan: ShadowRepository.snapshot() into its own GIT_DIR under a temp GYRE_HOME (what
//     a run with bash, `!cmd` or an MCP tool takes).
//   gyre, named paths: snapshot({ paths }) with the file a write or edit reported: one `git add`
//     and a write-tree, no listing (what the end-of-run checkpoint of a write/edit-only run takes).
//   baseline: `git add -A && git commit -q -m x` in a plain repository of the same files.
//   gyre, nothing changed: a full scan that finds no change reuses the last tree (the listing only:
//     diff-files and ls-files -o, run side by side).
// The first three are interleaved within each round (order rotating), so load swings hit them alike.
// Targets: snapshot ≤ 50 ms; ≤ 1.2× the baseline. Medians of N rounds, after one warm-up round.
// Usage: node bench/checkpoints.mjs [--files 10000] [--rounds 15]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { parseOptions } from "./lib/item-main.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const options = parseOptions();
const fileCount = options.files ?? 10_000;
const rounds = options.rounds ?? 15;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function loadCheckpoints(work) {
  const outfile = path.join(work, "checkpoints.mjs");
  await build({
    entryPoints: [path.join(root, "packages/cli/src/core/checkpoints/shadow-repository.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
  });
  return import(pathToFileURL(outfile).href);
}

/** 100 folders of source-sized files, like a mid-sized project. */
function createTree(dir) {
  const perFolder = 100;
  for (let folder = 0; folder < Math.ceil(fileCount / perFolder); folder++) {
    mkdirSync(path.join(dir, `module-${folder}`), { recursive: true });
    for (let file = 0; file < perFolder && folder * perFolder + file < fileCount; file++)
      writeFileSync(
        path.join(dir, `module-${folder}`, `file-${file}.ts`),
        `export const value${file} = ${folder * file};\n`.repeat(20),
      );
  }
  writeFileSync(path.join(dir, ".gitignore"), "node_modules/\n");
}

const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const plainGit = (cwd, args) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd, env: gitEnv, stdio: "pipe" });

/** Each round edits the one file, then times every measure once, rotating their order. */
async function timeInterleaved(measures) {
  const times = measures.map(() => []);
  for (let round = 0; round <= rounds; round++)
    for (let step = 0; step < measures.length; step++) {
      const which = (round + step) % measures.length;
      const { dir, run } = measures[which];
      writeFileSync(path.join(dir, "module-7", "file-7.ts"), `export const changed = ${round}.${which};\n`);
      const started = performance.now();
      await run();
      if (round > 0) times[which].push(performance.now() - started);
    }
  return times.map(median);
}

const work = mkdtempSync(path.join(tmpdir(), "gyre-bench-checkpoints-"));
try {
  const { ShadowRepository } = await loadCheckpoints(work);
  const workspace = path.join(work, "workspace");
  const plain = path.join(work, "plain");
  createTree(workspace);
  createTree(plain);
  plainGit(plain, ["init", "-q"]);
  plainGit(plain, ["add", "-A"]);
  plainGit(plain, ["commit", "-q", "-m", "initial"]);

  const repository = await ShadowRepository.open({ gyreHome: path.join(work, "home"), workspace });
  const first = performance.now();
  await repository.snapshot();
  const firstMs = performance.now() - first;
  const [fullMs, namedMs, gitMs] = await timeInterleaved([
    { dir: workspace, run: () => repository.snapshot() },
    { dir: workspace, run: () => repository.snapshot({ paths: ["module-7/file-7.ts"] }) },
    {
      dir: plain,
      run: () => {
        plainGit(plain, ["add", "-A"]);
        plainGit(plain, ["commit", "-q", "-m", "x"]);
      },
    },
  ]);
  // The snapshot before a run's first tool when nothing changed since the last one (the common case).
  const idle = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await repository.snapshot();
    idle.push(performance.now() - started);
  }
  console.log(`checkpoints: ${fileCount} files, ${rounds} rounds, one small change per round (interleaved)`);
  console.log(`first snapshot (all files)                 ${firstMs.toFixed(1)} ms`);
  console.log(`snapshot, full scan (median)               ${fullMs.toFixed(1)} ms  (target ≤ 50 ms)`);
  console.log(`snapshot, paths write/edit named (median)  ${namedMs.toFixed(1)} ms  (target ≤ 50 ms)`);
  console.log(`snapshot, full scan, nothing changed (median) ${median(idle).toFixed(1)} ms`);
  console.log(`git add -A && git commit (median)          ${gitMs.toFixed(1)} ms`);
  console.log(`full scan ÷ git                            ${(fullMs / gitMs).toFixed(2)}x  (target ≤ 1.2x)`);
  console.log(`named paths ÷ git                          ${(namedMs / gitMs).toFixed(2)}x  (target ≤ 1.2x)`);
  console.log(`load average (1 min) at the end            ${loadavg()[0].toFixed(1)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
