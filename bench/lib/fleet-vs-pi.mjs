// The fleet bench's comparison with Pi: the same N one-tool-call sessions ("read small.txt, then
// answer") against the same fake model server, C at a time, once as `pi -p` child processes (what
// a team without a queue would script) and once as jobs of one `gyre worker --concurrency C`
// (each job a child gyre, its journal in Redis). Both run on Pi's Node 24. Measured: throughput
// (jobs ÷ wall time from the first start to the last end) and memory per concurrent session (the
// peak of the summed RSS of every process involved — for gyre the worker too — ÷ C), sampled
// from /proc every 100 ms.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { startFakeModelServer } from "../../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents, GYRE_BIN, MODEL_ID } from "./agents.mjs";

/** RSS in bytes of `pid` and all its descendants (processes that end mid-scan are skipped). */
function treeRss(pids) {
  const children = new Map();
  const rss = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      rss.set(Number(name), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) * 1024);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone between readdir and read
    }
  }
  let total = 0;
  const stack = [...pids];
  while (stack.length > 0) {
    const pid = stack.pop();
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Samples the summed RSS of `roots()` every 100 ms until `stop()`; resolves to the peak. */
function samplePeak(roots) {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss(roots()));
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

function run(spec, prompt) {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, [...spec.args, prompt], { cwd: spec.cwd, env: spec.env, stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(child.pid) : reject(new Error(`${prompt}: exit ${code}`))));
    run.live.add(child.pid);
    child.on("exit", () => run.live.delete(child.pid));
  });
}
run.live = new Set();

/** N `pi -p` processes, C at a time. */
async function piSide(agents, jobs, concurrency) {
  const sampler = samplePeak(() => [...run.live]);
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < jobs) await run(agents.pi(["-p"]), `job ${next++}: read small.txt and say done`);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, perSecond: jobs / seconds, peak: sampler.stop() };
}

/** One gyre worker of concurrency C on Node 24 draining N jobs. */
async function gyreSide(agents, { redisUrl, serverUrl, node, jobs, concurrency, round }) {
  const { Queue } = await import("bullmq");
  const { Redis } = await import("ioredis");
  const queue = `versus-pi-${round}`;
  const base = agents.gyre([], { model: false });
  const worker = spawn(
    node,
    [GYRE_BIN, "worker", "--redis", redisUrl, "--queue", queue, "--concurrency", String(concurrency)],
    {
      env: { ...base.env, OPENAI_BASE_URL: `${serverUrl}/v1`, OPENAI_API_KEY: "bench" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await new Promise((resolve, reject) => {
    let seen = "";
    worker.stderr.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("ready on queue")) resolve();
    });
    worker.on("exit", (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
  });
  const idleWorker = treeRss([worker.pid]);
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const list = new Queue(queue, { connection });
  try {
    const sampler = samplePeak(() => [worker.pid]);
    const started = performance.now();
    await list.addBulk(
      Array.from({ length: jobs }, (_, n) => ({
        name: "gyre",
        data: {
          prompt: `job ${n}: read small.txt and say done`,
          cwd: agents.workspace,
          provider: "openai",
          model: MODEL_ID,
        },
        opts: { attempts: 1 },
      })),
    );
    for (;;) {
      const counts = await list.getJobCounts("completed", "failed");
      if (counts.completed + counts.failed >= jobs) {
        if (counts.failed > 0) throw new Error(`${counts.failed} gyre jobs failed`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    return { seconds, perSecond: jobs / seconds, peak: sampler.stop(), idleWorker };
  } finally {
    await list.close();
    connection.disconnect();
    worker.kill("SIGKILL");
  }
}

/**
 * Runs both sides (gyre first, then Pi, then each again; the better of each side's two rounds is
 * kept, so one slow patch of the shared machine does not decide). Resolves to
 * `{ gyre, pi, jobs, concurrency }` with `{ seconds, perSecond, peak }` each.
 */
export async function compareWithPi({ pi, redisUrl, jobs, concurrency }) {
  const server = await startFakeModelServer({
    respond: ({ body }) => {
      const answered = (body?.messages ?? []).some((message) => message.role === "tool");
      if (answered) return { text: "done", delayMs: 100 };
      return { toolCalls: [{ name: "read", arguments: { path: "small.txt" } }], delayMs: 100 };
    },
  });
  const agents = createAgents({ serverUrl: server.url, piCli: pi.cli, node: pi.node });
  try {
    const rounds = { gyre: [], pi: [] };
    // Each session makes two model requests (the read call, then the answer): a side that made
    // fewer did not run the sessions it was timed on.
    const checked = async (side, work) => {
      const before = server.requests.length;
      const result = await work();
      const made = server.requests.length - before;
      if (made !== 2 * jobs)
        throw new Error(`${side} made ${made} model requests for ${jobs} sessions, not ${2 * jobs}`);
      return result;
    };
    for (let round = 0; round < 2; round++) {
      const options = { redisUrl, serverUrl: server.url, node: pi.node, jobs, concurrency, round };
      rounds.gyre.push(await checked("gyre", () => gyreSide(agents, options)));
      rounds.pi.push(await checked("pi", () => piSide(agents, jobs, concurrency)));
    }
    const best = (list) => list.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const leanest = (list) => Math.min(...list.map((entry) => entry.peak));
    return {
      gyre: {
        ...best(rounds.gyre),
        peak: leanest(rounds.gyre),
        idleWorker: Math.min(...rounds.gyre.map((r) => r.idleWorker)),
      },
      pi: { ...best(rounds.pi), peak: leanest(rounds.pi) },
      jobs,
      concurrency,
    };
  } finally {
    agents.cleanup();
    await server.close();
  }
}
