// Loop: per-turn overhead of a whole CLI run in print mode. The fake server asks for N tool-call
// turns (`read` of a 2-line file: no child process, so the tool itself costs next to nothing), then
// answers with text. Per turn = time from the first to the last model request over the turns
// between (start-up left out); issue #6's (t(100) − t(1)) / 99 is reported too. At 1,000 turns we also read peak RSS and whether turn time stays flat as the
// history grows (last 100 vs first 100 turns, from request arrival times at the server).
// Issue #6 targets: ≤ 1 ms per turn, flat with history, peak memory ≤ a third of Pi's.
//   node bench/loop.mjs [--rounds 5] [--long 1000] [--long-rounds 1]
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents } from "./lib/agents.mjs";
import { isMain, runStandalone } from "./lib/item-main.mjs";
import { interleave, measureCommand } from "./lib/measure.mjs";
import { median, summarize } from "./lib/stats.mjs";

/**
 * Runs one print-mode session of `turns` tool-call turns; resolves to
 * `{ ms, rssMb, arrivals }` (arrival times of each model request, for the flatness check).
 */
async function runTurns({ server, script, spec, turns, label }) {
  const first = server.requests.length;
  script.first = first;
  script.turns = turns;
  const result = await measureCommand(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, keepStdout: true });
  const requests = server.requests.slice(first);
  if (result.code !== 0 || requests.length !== turns + 1 || !result.stdout.includes("all done")) {
    const why = result.stderr.trim().slice(0, 300) || result.stdout.trim().slice(-300);
    throw new Error(`${label} made ${requests.length} of ${turns + 1} requests, exit ${result.code}: ${why}`);
  }
  return { ms: result.wallMs, rssMb: result.rssMb, arrivals: requests.map((request) => request.arrivedAt) };
}

/** Mean gap between consecutive arrivals over `[from, to)`. */
const meanGap = (arrivals, from, to) => (arrivals[to - 1] - arrivals[from]) / (to - 1 - from);

/** Measures the loop items; resolves to table rows. */
export async function run({ pi, piLatest, rounds = 5, long = 1000, "long-rounds": longRounds = 1, log = () => {} }) {
  // The newest Pi, and gyre with it, on the Node that Pi needs; else Pi 0.73.1 on this Node.
  const peer = piLatest ?? pi;
  // `script` is re-aimed before each run, so one server serves every run in turn.
  const script = { first: 0, turns: 1 };
  const server = await startFakeModelServer({
    respond: ({ index }) =>
      index - script.first < script.turns
        ? // A different limit each turn: identical calls with identical results would (rightly)
          // trip gyre's loop detector, and a real session's calls differ too.
          { toolCalls: [{ name: "read", arguments: { path: "small.txt", limit: 10 + index - script.first } }] }
        : { text: "all done" },
  });
  const agents = createAgents({ serverUrl: server.url, piCli: peer?.cli, node: piLatest?.node });
  const sides = { gyre: agents.gyre, ...(agents.pi ? { pi: agents.pi } : {}) };
  const args = ["--no-session", "-p", "read small.txt until told to stop"];
  const trial = (turns) =>
    Object.fromEntries(
      Object.entries(sides).map(([name, spec]) => [
        name,
        () => runTurns({ server, script, spec: spec(args), turns, label: `${name} (${turns} turns)` }),
      ]),
    );
  try {
    log(`loop: 1 and 100 tool-call turns, ${rounds} rounds, Pi ${peer?.version ?? "0.73.1"}`);
    // 1 and 100 alternate inside each round so both see the same machine state.
    const short = await interleave(
      Object.fromEntries(
        Object.entries(trial(1)).flatMap(([name, one]) => [
          [`${name}:1`, one],
          [`${name}:100`, trial(100)[name]],
        ]),
      ),
      { rounds },
    );
    const perTurn = (name) => {
      if (!short[`${name}:1`]) return undefined;
      return summarize(short[`${name}:100`].map((sample, at) => (sample.ms - short[`${name}:1`][at].ms) / 99));
    };
    // Pi's start-up alone wanders by hundreds of ms here, which swamps t100 − t1; the time between
    // the first and the last model request of one run leaves start-up out altogether.
    const requestGap = (samples, name) =>
      samples[name] &&
      summarize(samples[name].map((s) => (s.arrivals.at(-1) - s.arrivals[0]) / (s.arrivals.length - 1)));
    const rows = [
      {
        item: "loop: per turn, first → last request of 100",
        unit: "ms",
        gyre: requestGap(short, "gyre:100"),
        pi: requestGap(short, "pi:100"),
        note: "print mode, read tool; includes HTTP and the fake server; target gyre ≤ 1 ms",
      },
      {
        item: "loop: per-turn overhead, (t100 − t1)/99",
        unit: "ms",
        gyre: perTurn("gyre"),
        pi: perTurn("pi"),
        note: "issue #6's definition; start-up jitter makes it noisy",
      },
    ];

    log(`loop: ${long} tool-call turns, ${longRounds} round(s)`);
    const longRuns = await interleave(trial(long), { rounds: longRounds, warmup: 0 });
    const rss = (name) => longRuns[name] && median(longRuns[name].map((s) => s.rssMb ?? Number.NaN));
    rows.push({
      item: `loop: per turn, first → last request of ${long}`,
      unit: "ms",
      gyre: requestGap(longRuns, "gyre"),
      pi: requestGap(longRuns, "pi"),
      gyreRssMb: rss("gyre"),
      piRssMb: rss("pi"),
      note: `RSS = peak of the ${long}-turn run; target ≤ 1/3 of Pi's`,
    });
    const window = Math.min(100, Math.floor(long / 4));
    const flatness = (name) =>
      longRuns[name] &&
      summarize(longRuns[name].map((s) => meanGap(s.arrivals, long - window, long) / meanGap(s.arrivals, 0, window)));
    rows.push({
      item: `loop: turn time, last ${window} ÷ first ${window} turns`,
      unit: "x",
      gyre: flatness("gyre"),
      pi: flatness("pi"),
      note: "1.0 = flat as history grows; includes the server parsing a growing request",
    });
    return rows;
  } finally {
    agents.cleanup();
    await server.close();
  }
}

if (isMain(import.meta.url)) await runStandalone(run);
