#!/usr/bin/env node
/**
 * SSE parse throughput of the openai-completions provider, and import time of the package,
 * side by side with @mariozechner/pi-ai when it can be installed into a temp dir.
 *
 *   npx tsc -b packages/ai && node bench/sse-throughput.mjs [--mb 20] [--runs 3]
 *
 * The stream: the content-delta chunks of a recorded OpenAI stream, repeated to ~20 MB, then the
 * finish chunk, a usage chunk and [DONE]; served from a real HTTP server on 127.0.0.1 in 64 KiB
 * writes. Throughput = body bytes / wall time from the call to the final message.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const targetMb = option("mb", 20);
const runs = option("runs", 3);
const importRuns = option("import-runs", 7);

const gyreEntry = join(root, "packages/ai/dist/index.js");
if (!existsSync(gyreEntry)) {
  console.error("packages/ai/dist/index.js is missing: run `npx tsc -b packages/ai` first.");
  process.exit(2);
}

/** A large Chat Completions SSE body made of real content-delta records. */
function buildBody() {
  const fixture = join(root, "packages/ai/test/fixtures/providers/openai-completions/vllm-crusoe-llama33-text.sse");
  const records = readFileSync(fixture, "utf8")
    .split("\n\n")
    .filter((record) => record.startsWith("data: {"))
    .map((record) => JSON.parse(record.slice(6)));
  const deltas = records
    .filter((chunk) => chunk.choices?.[0]?.delta?.content)
    .map(
      (chunk) => `data: ${JSON.stringify({ ...chunk, choices: [{ ...chunk.choices[0], finish_reason: null }] })}\n\n`,
    );
  const unit = deltas.join("");
  const repeat = Math.ceil((targetMb * 1024 * 1024) / Buffer.byteLength(unit));
  const finish = { id: "bench", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
  const usage = { id: "bench", choices: [], usage: { prompt_tokens: 10, completion_tokens: repeat * deltas.length } };
  const body = `${unit.repeat(repeat)}data: ${JSON.stringify(finish)}\n\ndata: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`;
  const expectedText = deltas
    .map((record) => JSON.parse(record.slice(6)).choices[0].delta.content)
    .join("")
    .repeat(repeat);
  return { body: Buffer.from(body), expectedText, deltaCount: repeat * deltas.length };
}

function startServer(body) {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      let at = 0;
      const pump = () => {
        while (at < body.length) {
          const ok = response.write(body.subarray(at, at + 65536));
          at += 65536;
          if (!ok) return void response.once("drain", pump);
        }
        response.end();
      };
      pump();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const model = (baseUrl) => ({
  id: "bench-model",
  name: "bench",
  api: "openai-completions",
  provider: "bench",
  baseUrl,
  reasoning: false,
  input: ["text"],
  contextWindow: 128000,
  maxTokens: 4096,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
});
const context = { messages: [{ role: "user", content: "count", timestamp: Date.now() }] };

async function measure(label, streamFunction, baseUrl, expectedText, bytes) {
  const rates = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const events = streamFunction(model(baseUrl), context, { apiKey: "bench-key" });
    let count = 0;
    for await (const _event of events) count++;
    const message = await events.result();
    const seconds = (performance.now() - started) / 1000;
    const text = message.content.find((block) => block.type === "text")?.text ?? "";
    if (message.stopReason !== "stop" || text !== expectedText) {
      throw new Error(
        `${label}: wrong result (${message.stopReason}, ${message.errorMessage ?? ""}, ${text.length} chars)`,
      );
    }
    rates.push(bytes / 1024 / 1024 / seconds);
    if (count < 3) throw new Error(`${label}: too few events`);
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)];
}

function importTimeMs(specifier) {
  const times = [];
  for (let run = 0; run < importRuns; run++) {
    const result = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const t=performance.now();await import(${JSON.stringify(specifier)});console.log(performance.now()-t)`,
      ],
      { encoding: "utf8" },
    );
    if (result.status !== 0) throw new Error(`import of ${specifier} failed: ${result.stderr}`);
    times.push(Number(result.stdout.trim()));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Installs pi-ai into a temp dir (never into the repo); returns its entry URL or undefined. */
function installPi() {
  const prefix = join(tmpdir(), "gyre-bench-pi");
  const entry = join(prefix, "node_modules/@mariozechner/pi-ai/dist/index.js");
  if (!existsSync(entry)) {
    try {
      execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "@mariozechner/pi-ai@0.73.1"], {
        stdio: "ignore",
      });
    } catch (error) {
      console.log(
        `note: could not install @mariozechner/pi-ai (${error.message.split("\n")[0]}); reporting gyre only.`,
      );
      return undefined;
    }
  }
  return existsSync(entry) ? pathToFileURL(entry).href : undefined;
}

const { body, expectedText, deltaCount } = buildBody();
const server = await startServer(body);
const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
const mb = body.length / 1024 / 1024;
console.log(
  `stream: ${mb.toFixed(1)} MB, ${deltaCount} content deltas; median of ${runs} runs; node ${process.version}`,
);

const gyreUrl = pathToFileURL(gyreEntry).href;
const gyre = await import(gyreUrl);
const rows = [
  [
    "@gyre/ai",
    await measure("gyre", gyre.streamOpenAICompletions, baseUrl, expectedText, body.length),
    importTimeMs(gyreUrl),
  ],
];

const piUrl = installPi();
if (piUrl) {
  try {
    const pi = await import(piUrl);
    const piStream = (m, c, o) => pi.stream(m, c, o);
    rows.push([
      "@mariozechner/pi-ai 0.73.1",
      await measure("pi-ai", piStream, baseUrl, expectedText, body.length),
      importTimeMs(piUrl),
    ]);
  } catch (error) {
    console.log(`note: pi-ai run failed: ${error.message}`);
  }
}
server.close();

console.log("");
console.log("| package | SSE parse throughput (MB/s) | import time (ms, median) |");
console.log("|---|---:|---:|");
for (const [name, rate, importMs] of rows) console.log(`| ${name} | ${rate.toFixed(1)} | ${importMs.toFixed(0)} |`);
