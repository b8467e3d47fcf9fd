// Resume benchmark: time and peak memory to load the current branch of 10k- and 50k-entry
// sessions, gyre next to Pi (@earendil-works/pi-coding-agent@1.6.0, both on Node 24 LTS) opening
// the same conversation in its own format (Pi's session format is still version 3). Every
// measurement runs in a fresh Node process; medians of RUNS runs.
// Usage: node bench/sessions.mjs [--runs 5] [--sizes 10000,50000] [--keep]
// --keep leaves the generated sessions and the bundled resume script in the OS temp dir
// (gyre-bench-sessions) for profiling.
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { ensurePiLatest, PI_LATEST_VERSION } from "./lib/pi-install.mjs";

const root = new URL("..", import.meta.url).pathname;
const argValue = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const RUNS = Number(argValue("--runs", "5"));
const SIZES = argValue("--sizes", "10000,50000").split(",").map(Number);
const work = join(tmpdir(), "gyre-bench-sessions");
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// ---- the conversation (one generator, two formats) ----
const usage = {
  input: 12000,
  output: 300,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 12300,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const words = "the file function returns value error test build module import config server request handler".split(" ");
const prose = (n, seed) => Array.from({ length: n }, (_, i) => words[(i * 7 + seed) % words.length]).join(" ");

/** Entries of a realistic coding session; with `compactEvery`, a compaction entry every so often. */
function generateEntries(count, compactEvery) {
  const entries = [];
  let parentId = null;
  let lastUserIds = [];
  const used = new Set();
  const push = (data) => {
    let id = randomBytes(4).toString("hex");
    while (used.has(id)) id = randomBytes(4).toString("hex"); // a duplicate id could make a cycle
    used.add(id);
    const timestamp = new Date(1_780_000_000_000 + entries.length * 1000).toISOString();
    entries.push({ type: data.type, id, parentId, timestamp, ...data });
    parentId = id;
    return id;
  };
  let t = 0;
  while (entries.length < count) {
    t++;
    const userId = push({
      type: "message",
      message: { role: "user", content: `Please ${prose(30, t)} in src/module-${t % 97}.ts`, timestamp: t },
    });
    lastUserIds.push(userId);
    for (let step = 0; step < 3 && entries.length < count; step++) {
      const callId = `call_${t}_${step}`;
      const name = ["read", "edit", "bash"][step];
      push({
        type: "message",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: prose(25, t + step) },
            { type: "toolCall", id: callId, name, arguments: { path: `src/module-${t % 97}.ts`, command: "npm test" } },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "toolUse",
          timestamp: t,
        },
      });
      push({
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: callId,
          toolName: name,
          content: [{ type: "text", text: prose(70, t * 3 + step) }],
          isError: false,
          timestamp: t,
        },
      });
    }
    push({
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text: prose(40, t) }],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage,
        stopReason: "stop",
        timestamp: t,
      },
    });
    if (compactEvery && entries.length % compactEvery < 9 && lastUserIds.length > 20) {
      const firstKeptEntryId = lastUserIds[lastUserIds.length - 20];
      push({ type: "compaction", summary: `## Goal\n${prose(300, t)}`, firstKeptEntryId, tokensBefore: 150000 });
      lastUserIds = lastUserIds.slice(-20);
    }
  }
  return entries.slice(0, count);
}

function writeSession(path, entries, version) {
  const header = {
    type: "session",
    version,
    id: randomUUID(),
    timestamp: new Date(1_780_000_000_000).toISOString(),
    cwd: "/work/project",
  };
  writeFileSync(path, [header, ...entries].map((entry) => JSON.stringify(entry)).join("\n") + "\n");
}

// ---- the programs measured ----
const gyreScript = `
import { SessionManager } from ${JSON.stringify(join(root, "packages/cli/src/core/session/session-manager.ts"))};
const path = process.argv[2];
const t0 = performance.now();
let messages = 0;
if (path) {
  const session = await SessionManager.open(path);
  messages = session.buildContext().messages.length;
  var ms = performance.now() - t0;
  await session.close();
}
console.log(JSON.stringify({ ms: ms ?? 0, maxRssKb: process.resourceUsage().maxRSS, messages }));
`;
const piScript = (modulePath) => `
import { SessionManager } from ${JSON.stringify(modulePath)};
const path = process.argv[2];
const t0 = performance.now();
let messages = 0;
if (path) messages = SessionManager.open(path).buildSessionContext().messages.length;
const ms = path ? performance.now() - t0 : 0;
console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, messages }));
`;

async function bundleGyre() {
  const outfile = join(work, "gyre-resume.mjs");
  await build({
    stdin: { contents: gyreScript, resolveDir: root, sourcefile: "gyre-resume.ts", loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    plugins: [
      {
        name: "workspace",
        setup(b) {
          b.onResolve({ filter: /^@gyre\/(ai|agent)$/ }, (a) => ({
            path: join(root, "packages", a.path.slice(6), "src/index.ts"),
          }));
        },
      },
    ],
  });
  return outfile;
}

/** Pi's resume script and the Node both sides run on, or undefined when Pi cannot be installed. */
async function preparePi() {
  const pi = await ensurePiLatest();
  if (!pi.ok) {
    console.log(`note: ${pi.reason}; reporting gyre only.`);
    return undefined;
  }
  const script = join(work, "pi-resume.mjs");
  writeFileSync(
    script,
    piScript(join(pi.modulePath("@earendil-works/pi-coding-agent"), "dist/core/session-manager.js")),
  );
  return { script, node: pi.node };
}

function measure(script, path) {
  const results = [];
  for (let run = 0; run < RUNS; run++) {
    const out = spawnSync(node, [script, ...(path ? [path] : [])], { encoding: "utf8" });
    if (out.status !== 0) throw new Error(`${script} failed: ${out.stderr}`);
    results.push(JSON.parse(out.stdout.trim().split("\n").pop()));
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return {
    ms: median(results.map((r) => r.ms)),
    rssMb: median(results.map((r) => r.maxRssKb)) / 1024,
    messages: results[0].messages,
  };
}

const gyre = await bundleGyre();
const piSide = await preparePi();
const pi = piSide?.script;
const node = piSide?.node ?? process.execPath;
const baseGyre = measure(gyre);
const basePi = pi && measure(pi);
console.log(
  `resume = open the session file and build the current branch's context; median of ${RUNS} fresh processes; Node ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()}${pi ? `, Pi ${PI_LATEST_VERSION}` : ""}`,
);
console.log(
  `baseline peak RSS (module loaded, no session): gyre ${baseGyre.rssMb.toFixed(0)} MiB${basePi ? `, Pi ${basePi.rssMb.toFixed(0)} MiB` : ""}\n`,
);
const rows = [];
for (const size of SIZES) {
  for (const [shape, compactEvery] of [
    ["with compactions", 2000],
    ["one branch, never compacted", 0],
  ]) {
    const entries = generateEntries(size, compactEvery);
    const ours = join(work, `gyre-${size}-${compactEvery}.jsonl`);
    const theirs = join(work, `pi-${size}-${compactEvery}.jsonl`);
    writeSession(ours, entries, 1);
    writeSession(theirs, entries, 3);
    const g = measure(gyre, ours);
    const p = pi ? measure(pi, theirs) : undefined;
    rows.push({ size, shape, mb: statSync(ours).size / 2 ** 20, g, p });
    if (p && p.messages !== g.messages)
      console.log(`note: context sizes differ (gyre ${g.messages}, Pi ${p.messages} messages)`);
  }
}
const pad = (text, width) => String(text).padEnd(width);
console.log(
  `${pad("entries", 8)}${pad("shape", 30)}${pad("file", 9)}${pad("gyre ms", 9)}${pad("Pi ms", 9)}${pad("speed-up", 10)}${pad("gyre RSS", 10)}${pad("Pi RSS", 10)}${pad("RSS +Δ gyre/Pi", 16)}context msgs`,
);
for (const { size, shape, mb, g, p } of rows) {
  const delta = p ? `${(g.rssMb - baseGyre.rssMb).toFixed(0)}/${(p.rssMb - basePi.rssMb).toFixed(0)} MiB` : "-";
  console.log(
    `${pad(size, 8)}${pad(shape, 30)}${pad(`${mb.toFixed(1)} MB`, 9)}${pad(g.ms.toFixed(0), 9)}${pad(p ? p.ms.toFixed(0) : "-", 9)}${pad(p ? `${(p.ms / g.ms).toFixed(1)}x` : "-", 10)}${pad(`${g.rssMb.toFixed(0)} MiB`, 10)}${pad(p ? `${p.rssMb.toFixed(0)} MiB` : "-", 10)}${pad(delta, 16)}${g.messages}`,
  );
}
if (!process.argv.includes("--keep")) rmSync(work, { recursive: true, force: true });
