// Fleet benchmark (issue 19): memory per idle session with many sessions in one process on the
// faux model (the SDK's createAgentSession), then, on a real redis-server on 127.0.0.1, job
// throughput of `gyre worker` processes (concurrency 4 each) on the faux model for 1, 2 and 4
// workers, and the p99 latency of a job's events from the worker to a follower (`gyre job
// --follow`'s client): receipt time minus the time Redis stored the worker's XADD (the stream id).
// Then the same sessions side by side with Pi 1.6.0 (bench/lib/fleet-vs-pi.mjs): N `pi -p`
// processes C at a time against one `gyre worker --concurrency C`, on one fake model server.
// Usage: node bench/fleet.mjs [--sessions 1000] [--jobs 40] [--workers 1,2,4] [--pi-jobs 24]
//        [--pi-concurrency 8] [--no-pi]
// Prints a table in the runner's format and writes bench/results/fleet.md. Needs redis-server.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareWithPi } from "./lib/fleet-vs-pi.mjs";
import { ensurePiLatest } from "./lib/pi-install.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const argValue = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const SESSIONS = Number(argValue("--sessions", "1000"));
const JOBS = Number(argValue("--jobs", "40"));
const WORKERS = argValue("--workers", "1,2,4").split(",").map(Number);
const PI_JOBS = Number(argValue("--pi-jobs", "24"));
const PI_CONCURRENCY = Number(argValue("--pi-concurrency", "8"));
const gyreBin = join(root, "packages/cli/bin/gyre.js");
const work = mkdtempSync(join(tmpdir(), "gyre-bench-fleet-"));
const log = (line) => console.error(`[fleet] ${line}`);
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Idle sessions: each created, prompted once on the faux model, then left open. In a child with --expose-gc. */
function measureIdleSessions() {
  const script = `
    const { createAgentSession } = await import(${JSON.stringify(join(root, "packages/cli/dist/index.js"))});
    const { createFauxModel } = await import(${JSON.stringify(join(root, "packages/ai/dist/testing.js"))});
    const [cwd, home, count] = process.argv.slice(-3);
    const settle = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage(); };
    const warm = await createAgentSession({ cwd, gyreHome: home, model: createFauxModel([{ content: [{ type: "text", text: "ok" }] }]).model });
    await warm.session.prompt("warm up");
    const before = settle();
    const started = performance.now();
    const open = [];
    for (let n = 0; n < Number(count); n++) {
      const faux = createFauxModel([{ content: [{ type: "text", text: "ready" }] }]);
      const created = await createAgentSession({ cwd, gyreHome: home, model: faux.model });
      await created.session.prompt("session " + n + ": say ready");
      open.push(created);
    }
    const elapsed = performance.now() - started;
    const after = settle();
    console.log(JSON.stringify({ count: open.length, elapsed, rss: after.rss - before.rss, heap: after.heapUsed - before.heapUsed, totalRss: after.rss }));
    process.exit(0);
  `;
  const cwd = join(work, "sessions-cwd");
  const home = join(work, "sessions-home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const file = join(work, "idle-sessions.mjs");
  writeFileSync(file, script);
  const result = spawnSync(process.execPath, ["--expose-gc", file, cwd, home, String(SESSIONS)], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, GYRE_HOME: home },
    timeout: 20 * 60_000,
  });
  if (result.status !== 0) throw new Error(`idle sessions failed: ${result.stderr.trim().split("\n").at(-1)}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis() {
  const port = await freePort();
  const dir = join(work, "redis");
  mkdirSync(dir, { recursive: true });
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => chunk.toString().includes("Ready to accept") && resolve());
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill("SIGKILL") };
}

function startWorker(url, queue, home) {
  const child = spawn(process.execPath, [gyreBin, "worker", "--redis", url, "--queue", queue, "--concurrency", "4"], {
    env: { PATH: process.env.PATH, HOME: home, GYRE_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("ready on queue")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
  });
}

/**
 * Follows every job's event stream (one XREAD over all of them, as `gyre job --follow` reads one)
 * until every job has finished; returns each event's delay from its XADD to its receipt.
 */
async function followAll(redis, queue, ids, finished) {
  const keys = ids.map((id) => `gyre:fleet:${queue}:events:${id}`);
  const cursors = keys.map(() => "0");
  const latencies = [];
  while (true) {
    const batch = await redis.xread("COUNT", 1000, "BLOCK", 200, "STREAMS", ...keys, ...cursors);
    const now = Date.now();
    for (const [key, entries] of batch ?? []) {
      const index = keys.indexOf(key);
      for (const [id] of entries) {
        cursors[index] = id;
        latencies.push(now - Number(id.split("-")[0]));
      }
    }
    if ((batch ?? []).length === 0 && (await finished())) return latencies;
  }
}

/** Drains JOBS jobs with `workers` worker processes while following their events. */
async function measureThroughput(redisUrl, workers, script) {
  const { Queue } = await import("bullmq");
  const { Redis } = await import("ioredis");
  const queue = `bench-${workers}`;
  const home = join(work, `home-${workers}`);
  const cwd = join(work, `cwd-${workers}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(redisUrl, queue, home)));
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const reader = connection.duplicate();
  const jobs = new Queue(queue, { connection });
  try {
    const started = performance.now();
    const added = await Promise.all(
      Array.from({ length: JOBS }, (_, n) =>
        jobs.add("gyre", { prompt: `job ${n}`, cwd, provider: "faux", fauxScript: script, tools: [] }, { attempts: 1 }),
      ),
    );
    const finished = async () => {
      const counts = await jobs.getJobCounts("completed", "failed");
      return counts.completed + counts.failed >= JOBS;
    };
    const latencies = await followAll(
      reader,
      queue,
      added.map((job) => job.id),
      finished,
    );
    const elapsed = (performance.now() - started) / 1000;
    const { completed } = await jobs.getJobCounts("completed");
    return { workers, completed, elapsed, perSecond: completed / elapsed, latencies };
  } finally {
    await jobs.close();
    reader.disconnect();
    connection.disconnect();
    for (const child of children) child.kill("SIGKILL");
  }
}

const rows = [];
const notes = [];
log(`${SESSIONS} idle sessions in one process on the faux model`);
const idle = measureIdleSessions();
rows.push(
  `| fleet: memory per idle session (${idle.count} sessions) | ${(idle.rss / idle.count / 1024).toFixed(1)} KB | - | - | - | ${(idle.totalRss / 1048576).toFixed(0)} MB | RSS growth ÷ sessions after GC; heap ${(idle.heap / idle.count / 1024).toFixed(1)} KB each; ${(idle.elapsed / idle.count).toFixed(1)} ms to create+prompt each |`,
);
if (spawnSync("redis-server", ["--version"]).status !== 0) notes.push("redis-server missing: throughput skipped");
else {
  const redis = await startRedis();
  const script = join(work, "script.json");
  writeFileSync(script, JSON.stringify([{ content: [{ type: "text", text: "done" }] }]));
  try {
    const results = [];
    for (const workers of WORKERS) {
      log(`${JOBS} jobs, ${workers} worker process(es) × concurrency 4`);
      results.push(await measureThroughput(redis.url, workers, script));
    }
    const base = results[0]?.perSecond ?? Number.NaN;
    for (const result of results)
      rows.push(
        `| fleet: job throughput, ${result.workers} worker(s) × 4 | ${result.perSecond.toFixed(2)} jobs/s | - | - | - | - | ${result.completed}/${JOBS} completed in ${result.elapsed.toFixed(1)} s; ${(result.perSecond / base).toFixed(2)}× of 1 worker; each job a child gyre on the faux model |`,
      );
    const all = results.flatMap((result) => result.latencies);
    rows.push(
      `| fleet: event latency worker→follower, p99 | ${percentile(all, 99).toFixed(0)} ms | - | - | - | - | p50 ${percentile(all, 50).toFixed(0)} ms over ${all.length} events (Redis stream id time → follower receipt) |`,
    );
    if (process.argv.includes("--no-pi")) notes.push("Pi comparison skipped (--no-pi)");
    else await addPiRows(redis.url);
  } finally {
    redis.stop();
  }
}
/** The side-by-side rows: gyre worker jobs vs `pi -p` processes, memory per concurrent session and throughput. */
async function addPiRows(redisUrl) {
  const pi = await ensurePiLatest();
  if (!pi.ok) {
    notes.push(`Pi comparison skipped: ${pi.reason}`);
    return;
  }
  log(
    `${PI_JOBS} sessions ${PI_CONCURRENCY} at a time: gyre worker jobs vs pi -p processes (Pi ${pi.version}, Node 24)`,
  );
  const versus = await compareWithPi({ pi, redisUrl, jobs: PI_JOBS, concurrency: PI_CONCURRENCY });
  const mb = (bytes) => `${(bytes / 1048576).toFixed(0)} MB`;
  const { gyre, pi: peer, jobs, concurrency } = versus;
  const what = `${jobs} sessions (read small.txt, answer) ${concurrency} at a time, fake model server, Node 24`;
  rows.push(
    `| fleet vs Pi: memory per concurrent session | ${mb(gyre.peak / concurrency)} | ${mb(peer.peak / concurrency)} | ${(gyre.peak / peer.peak).toFixed(2)} | - | ${mb(gyre.peak)} / ${mb(peer.peak)} | peak summed RSS ÷ ${concurrency}: gyre = 1 worker (${mb(gyre.idleWorker)} idle) + its job processes, Pi = its -p processes; ${what}; lower of 2 rounds |`,
    `| fleet vs Pi: throughput | ${gyre.perSecond.toFixed(2)} jobs/s | ${peer.perSecond.toFixed(2)} jobs/s | ${(gyre.perSecond / peer.perSecond).toFixed(2)} | - | - | above 1 = gyre faster; gyre: jobs through Redis (journal, events), ${gyre.seconds.toFixed(1)} s; Pi: ${peer.seconds.toFixed(1)} s; ${what}; better of 2 rounds |`,
  );
}

const header = `# fleet bench: ${new Date().toISOString()}\n\nnode ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}; load average ${loadavg()[0].toFixed(2)}\n`;
const table = [
  "| item | gyre | pi | ratio | min–max | peak RSS | note |",
  "|---|---|---|---|---|---|---|",
  ...rows,
  ...notes.map((note) => `| fleet | - | - | - | - | - | ${note} |`),
].join("\n");
console.log(`${header}\n${table}`);
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/fleet.md"), `${header}\n${table}\n`);
rmSync(work, { recursive: true, force: true });
