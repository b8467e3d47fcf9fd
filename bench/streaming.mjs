// Streaming in JSON mode (`--mode json -p`), gyre next to Pi:
// - bytes and lines written for a 4,000-token answer, and how bytes grow from 1,000 to 4,000 tokens
//   (4x = linear: each event carries only its delta; 16x = quadratic: each carries the partial so far);
// - end-to-end latency from a token leaving the server to its event reaching our end of stdout:
//   tokens are paced INTERVAL ms apart and each carries a marker (k17) that we look for in the output.
//   node bench/streaming.mjs [--rounds 3] [--tokens 4000] [--latency-tokens 200] [--interval 5]
import { createAgents } from "./lib/agents.mjs";
import { isMain, runStandalone } from "./lib/item-main.mjs";
import { interleave, measureCommand } from "./lib/measure.mjs";
import { startPacedSseServer } from "./lib/paced-sse-server.mjs";
import { median, quantile, summarize } from "./lib/stats.mjs";

const ARGS = ["--no-session", "--mode", "json", "-p", "answer at length"];
// One short word per chunk: about one token each for any BPE tokenizer.
const plainTokens = (count) => Array.from({ length: count }, (_, at) => `w${at % 10} `);
const markedTokens = (count) => Array.from({ length: count }, (_, at) => ` k${at}`);

async function runJson(spec, label, onStdout) {
  const result = await measureCommand(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, onStdout });
  if (result.code !== 0) throw new Error(`${label} exited ${result.code}: ${result.stderr.trim().slice(0, 300)}`);
  return result;
}

/** The line a run writes after agent_end: gyre's `result`, Pi 1.6's `agent_settled`. */
const isTrailer = (head) => head.includes('"type":"result"') || head.includes('"type":"agent_settled"');

/**
 * Counts the bytes of message_update lines as stdout arrives, without keeping Pi's tens of MiB.
 * Coalesced deltas (several tokens per event) only lower the per-token figure, so it stays a fair
 * test of whether an event's size grows with the answer so far.
 */
function createUpdateCounter() {
  let bytes = 0;
  let lineBytes = 0;
  let head = "";
  let lastHead = "";
  let endHead = "";
  return {
    add: (chunk) => {
      let start = 0;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
        if (head.length < 64) head += chunk.toString("utf8", start, Math.min(at, start + 64));
        if (head.includes('"message_update"')) bytes += lineBytes + at - start + 1;
        if (!isTrailer(head)) endHead = head;
        lastHead = head;
        lineBytes = 0;
        head = "";
        start = at + 1;
      }
      if (head.length < 64) head += chunk.toString("utf8", start, Math.min(chunk.length, start + 64));
      lineBytes += chunk.length - start;
    },
    get bytes() {
      return bytes;
    },
    /**
     * Whether the output ends as a whole run does: agent_end, then at most the closing line each
     * tool adds (gyre's result, Pi 1.6's agent_settled). A run that lost output at exit ends elsewhere.
     */
    get complete() {
      return (lastHead.includes('"agent_end"') || isTrailer(lastHead)) && endHead.includes('"agent_end"');
    },
  };
}

/**
 * When each marker's text delta first reached us. Chunks are kept with their arrival time and parsed
 * after the run, so parsing never delays the timestamp of a later chunk.
 */
function markerArrivals(chunks, count) {
  const arrivals = new Array(count).fill(Number.NaN);
  let pending = "";
  for (const { text, at } of chunks) {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.includes('"text_delta"')) continue;
      const event = JSON.parse(line);
      // gyre: message_update.event (DESIGN §4); Pi: message_update.assistantMessageEvent.
      const delta = (event.event ?? event.assistantMessageEvent)?.delta ?? "";
      for (const match of delta.matchAll(/k(\d+)/g)) {
        const index = Number(match[1]);
        if (index < count && Number.isNaN(arrivals[index])) arrivals[index] = at;
      }
    }
  }
  return arrivals;
}

/** Measures the streaming items; resolves to table rows. */
export async function run({
  pi,
  piLatest,
  rounds = 3,
  tokens = 4000,
  "latency-tokens": latencyTokens = 200,
  interval = 5,
  log = () => {},
}) {
  const server = await startPacedSseServer();
  // Pi 1.6 (on its Node 24) when installed, as start-up and loop compare; else Pi 0.73.1 on this Node.
  const peer = piLatest ?? pi;
  const agents = createAgents({ serverUrl: server.url, piCli: peer?.cli, node: piLatest?.node });
  const sides = { gyre: agents.gyre, ...(agents.pi ? { pi: agents.pi } : {}) };
  const each = (make) =>
    Object.fromEntries(Object.entries(sides).map(([name, spec]) => [name, make(spec(ARGS), name)]));
  try {
    log(`streaming: JSON-mode output for 1,000 and ${tokens} tokens (${rounds} rounds)`);
    const sized = (count) => (spec, name) => async () => {
      server.setPlan({ tokens: plainTokens(count), intervalMs: 0 });
      const counter = createUpdateCounter();
      const result = await runJson(spec, name, counter.add);
      const perToken = counter.bytes / count;
      const sample = {
        bytes: result.stdoutBytes,
        lines: result.stdoutLines,
        perToken,
        ms: result.wallMs,
        rssMb: result.rssMb,
      };
      // A truncated run would understate bytes and lines, so it counts only towards the note.
      return counter.complete ? sample : { truncated: true };
    };
    // Output size is deterministic; the rounds are for the wall time and memory columns.
    const big = await interleave(each(sized(tokens)), { rounds });
    const small = await interleave(each(sized(1000)), { rounds: 2, warmup: 0 });
    const whole = (samples, name) => samples[name]?.filter((s) => !s.truncated);
    const pick = (samples, name, map) => samples[name] && summarize(whole(samples, name).map(map));
    const smallPerToken = (name) => median(whole(small, name)?.map((s) => s.perToken) ?? []);
    const truncated = Object.keys(sides)
      .map((name) => [name, [...big[name], ...small[name]].filter((s) => s.truncated).length])
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${name} lost the end of its output in ${count} of ${rounds + 2} runs (left out)`);
    const rows = [
      {
        item: `streaming: JSON bytes, ${tokens}-token answer`,
        unit: "KiB",
        gyre: pick(big, "gyre", (s) => s.bytes / 1024),
        pi: pick(big, "pi", (s) => s.bytes / 1024),
        note: ["stdout of --mode json -p", ...truncated].join("; "),
      },
      {
        item: `streaming: JSON lines, ${tokens}-token answer`,
        unit: "",
        gyre: pick(big, "gyre", (s) => s.lines),
        pi: pick(big, "pi", (s) => s.lines),
        note: "fewer lines than tokens = deltas coalesced",
      },
      {
        item: `streaming: update bytes per token, ${tokens} ÷ 1,000 tokens`,
        unit: "x",
        gyre: pick(big, "gyre", (s) => s.perToken / smallPerToken("gyre")),
        pi: pick(big, "pi", (s) => s.perToken / smallPerToken("pi")),
        note: `message_update bytes per answer token; ≤ 1 = linear output, ${tokens / 1000} = quadratic`,
      },
      {
        item: `streaming: whole run, ${tokens}-token answer`,
        unit: "ms",
        gyre: pick(big, "gyre", (s) => s.ms),
        pi: pick(big, "pi", (s) => s.ms),
        gyreRssMb: median(whole(big, "gyre").map((s) => s.rssMb ?? Number.NaN)),
        piRssMb: big.pi && median(whole(big, "pi").map((s) => s.rssMb ?? Number.NaN)),
        note: "tokens sent back to back",
      },
    ];

    log(`streaming: token → stdout latency, ${latencyTokens} tokens ${interval} ms apart (${rounds} rounds)`);
    const latency = (spec, name) => async () => {
      server.setPlan({ tokens: markedTokens(latencyTokens), intervalMs: interval });
      const chunks = [];
      await runJson(spec, name, (chunk, at) => chunks.push({ text: chunk.toString("utf8"), at }));
      const sent = server.sent();
      const arrivals = markerArrivals(chunks, latencyTokens);
      const delays = arrivals.map((at, index) => at - sent[index]).filter(Number.isFinite);
      // Markers missing at the tail mean lost output (see the bytes row); time the ones that came.
      if (delays.length === 0) throw new Error(`${name}: no token reached stdout`);
      return { p50: median(delays), p95: quantile(delays, 0.95) };
    };
    const latencies = await interleave(each(latency), { rounds });
    const lat = (name, key) => latencies[name] && summarize(latencies[name].map((s) => s[key]));
    rows.push(
      {
        item: "streaming: token → stdout latency, median",
        unit: "ms",
        gyre: lat("gyre", "p50"),
        pi: lat("pi", "p50"),
        note: `${latencyTokens} tokens, ${interval} ms apart; per-run medians`,
      },
      { item: "streaming: token → stdout latency, p95", unit: "ms", gyre: lat("gyre", "p95"), pi: lat("pi", "p95") },
    );
    return rows;
  } finally {
    agents.cleanup();
    await server.close();
  }
}

if (isMain(import.meta.url)) await runStandalone(run);
