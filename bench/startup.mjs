// Start-up: `--version`, `--help`, and time from spawn to the first request reaching the model
// server in print mode (`-p`), gyre next to Pi, with `node -e 0` as the floor both stand on.
// Targets: gyre --version ≤ 1.3x `node -e 0` on Node 20 and ≤ 1.5x on Node 24 (where both tools
// run, Pi 1.6.0 needing ≥ 22.19), and start-up ≥ 5x faster than Pi.
//   node bench/startup.mjs [--rounds 7]
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents } from "./lib/agents.mjs";
import { isMain, runStandalone } from "./lib/item-main.mjs";
import { interleave, measureCommand } from "./lib/measure.mjs";
import { NODE_LTS_VERSION, PI_LATEST_VERSION } from "./lib/pi-install.mjs";
import { median, summarize } from "./lib/stats.mjs";

/** Runs one spawn spec; fails loudly when a tool exits non-zero, since its time would be meaningless. */
async function runSpec(spec, label) {
  const result = await measureCommand(spec.command, spec.args, { cwd: spec.cwd, env: spec.env });
  if (result.code !== 0) throw new Error(`${label} exited ${result.code}: ${result.stderr.trim().slice(0, 400)}`);
  return result;
}

const row = (item, samples, note) => {
  const rss = (side) => (samples[side] ? median(samples[side].map((s) => s.rssMb ?? Number.NaN)) : undefined);
  return {
    item,
    unit: "ms",
    gyre: summarize(samples.gyre.map((s) => s.ms)),
    pi: samples.pi && summarize(samples.pi.map((s) => s.ms)),
    gyreRssMb: rss("gyre"),
    piRssMb: rss("pi"),
    note,
  };
};

/** Measures every start-up item; resolves to table rows. */
export async function run({ pi, piLatest, rounds = 7, log = () => {} }) {
  const server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
  // Side by side on the Node the newest Pi needs; gyre's --version also on this (older) Node.
  const peer = piLatest ?? pi;
  const agents = createAgents({ serverUrl: server.url, piCli: peer?.cli, node: piLatest?.node });
  const local = createAgents({ serverUrl: server.url, piCli: undefined });
  const sides = { gyre: agents.gyre, ...(agents.pi ? { pi: agents.pi } : {}) };
  try {
    const rows = [];
    log(`start-up: node floors, --version, --help (${rounds} rounds, Pi ${peer?.version ?? "0.73.1"})`);
    const floor = (node) => ({ command: node, args: ["-e", "0"], env: process.env });
    const versionOf = (spec, name) => async () => timed(await runSpec(spec(["--version"], { model: false }), name));
    const versions = await interleave(
      {
        node: async () => timed(await runSpec(floor(process.execPath), "node -e 0")),
        gyreHere: versionOf(local.gyre, "gyre"),
        ...(piLatest ? { nodeLts: async () => timed(await runSpec(floor(piLatest.node), "node -e 0")) } : {}),
        ...mapSides(sides, versionOf),
      },
      { rounds },
    );
    const floorRow = (samples, version) => ({
      item: `node -e 0 (floor), Node ${version}`,
      unit: "ms",
      gyre: summarize(samples.map((s) => s.ms)),
      gyreRssMb: median(samples.map((s) => s.rssMb)),
      note: "Node alone; both tools stand on it",
    });
    const ratio = (samples, base) =>
      (summarize(samples.map((s) => s.ms)).median / summarize(base.map((s) => s.ms)).median).toFixed(2);
    rows.push(floorRow(versions.node, process.versions.node));
    rows.push({
      item: `start-up: --version, Node ${process.versions.node}`,
      unit: "ms",
      gyre: summarize(versions.gyreHere.map((s) => s.ms)),
      gyreRssMb: median(versions.gyreHere.map((s) => s.rssMb)),
      note: `gyre/node ${ratio(versions.gyreHere, versions.node)}x (target ≤ 1.3x); Pi ${PI_LATEST_VERSION} needs Node ≥ 22.19`,
    });
    if (versions.nodeLts) rows.push(floorRow(versions.nodeLts, NODE_LTS_VERSION));
    const lts = versions.nodeLts ?? versions.node;
    rows.push(
      row(
        `start-up: --version${piLatest ? `, Node ${NODE_LTS_VERSION}` : ""}`,
        versions,
        `gyre/node ${ratio(versions.gyre, lts)}x (target ≤ 1.5x); target gyre/Pi ≤ 0.2x`,
      ),
    );

    const helps = await interleave(
      mapSides(sides, (spec, name) => async () => timed(await runSpec(spec(["--help"], { model: false }), name))),
      { rounds },
    );
    rows.push(row("start-up: --help", helps));

    log(`start-up: -p time to first request (${rounds} rounds)`);
    const firstRequest = (spec, name) => async () => {
      const before = server.requests.length;
      const result = await runSpec(spec(["--no-session", "-p", "say ok"]), name);
      const request = server.requests[before];
      if (!request) throw new Error(`${name} -p exited without calling the model`);
      return { ms: request.arrivedAt - result.startedAt, total: result.wallMs, rssMb: result.rssMb };
    };
    const prints = await interleave(mapSides(sides, firstRequest), { rounds });
    rows.push(row("start-up: -p to first request", prints, "spawn → request arrives at the fake server"));
    const totals = Object.fromEntries(
      Object.entries(prints).map(([side, list]) => [side, list.map((s) => ({ ms: s.total, rssMb: s.rssMb }))]),
    );
    rows.push(row("start-up: -p whole run (1 answer)", totals, "spawn → exit, one short text answer"));
    return rows;
  } finally {
    agents.cleanup();
    local.cleanup();
    await server.close();
  }
}

const timed = (result) => ({ ms: result.wallMs, rssMb: result.rssMb });
const mapSides = (sides, make) =>
  Object.fromEntries(Object.entries(sides).map(([name, spec]) => [name, make(spec, name)]));

if (isMain(import.meta.url)) await runStandalone(run);
