// `gyre acp` latency, as an editor feels it, next to what a script feels with `-p`:
//   acp warm: the agent is up and the session exists (the editor's steady state): time from
//             sending `session/prompt` to the first `agent_message_chunk`;
//   acp cold: from spawning `gyre acp` through initialize and session/new to that first chunk;
//   -p:       from spawning `gyre --mode json -p` to its first text delta (the first token).
// All three answer from one fake OpenAI-compatible server on 127.0.0.1 (no network), through a
// models.json provider, so the model's time is the same everywhere. Pi has no ACP mode: no Pi column.
// Usage: node bench/acp.mjs [--rounds 10]   (needs the bundle: npm run build)
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, ndJsonStream } from "@agentclientprotocol/sdk";
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const gyreBin = path.join(root, "packages/cli/bin/gyre.js");
const argv = process.argv.slice(2);
const roundsAt = argv.indexOf("--rounds");
const rounds = roundsAt === -1 ? 10 : Number(argv[roundsAt + 1]);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const server = await startFakeModelServer({ respond: () => ({ text: "The first token, then a few more." }) });
const home = await mkdtemp(path.join(tmpdir(), "gyre-bench-acp-"));
const cwd = path.join(home, "project");
await mkdir(cwd);
const lab = {
  api: "openai-completions",
  baseUrl: `${server.url}/v1`,
  apiKeyEnv: "LAB_API_KEY",
  models: [{ id: "fake-model", contextWindow: 32768, maxTokens: 2048 }],
};
await writeFile(path.join(home, "models.json"), JSON.stringify({ providers: { lab } }));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GYRE_HOME: home, HOME: home, LAB_API_KEY: "x" };
const flags = ["--provider", "lab", "--model", "fake-model", "--no-extensions"];

/** One `gyre acp` process: cold (spawn → first chunk) once, then warm prompts in the same session. */
async function acpRound(warmPrompts) {
  const spawned = performance.now();
  const child = spawn(process.execPath, [gyreBin, "acp", ...flags], { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  let firstChunk;
  const app = client({ name: "bench" }).onNotification("session/update", ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") firstChunk?.();
  });
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
  const agent = connection.agent;
  const chunk = () =>
    new Promise((resolve) => {
      firstChunk = () => {
        firstChunk = undefined;
        resolve(performance.now());
      };
    });
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await agent.request("session/new", { cwd, mcpServers: [] });
  let seen = chunk();
  let done = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
  const cold = (await seen) - spawned;
  await done;
  const warm = [];
  for (let i = 0; i < warmPrompts; i++) {
    seen = chunk();
    const sent = performance.now();
    done = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `again ${i}` }] });
    warm.push((await seen) - sent);
    await done;
  }
  connection.close();
  child.stdin.end();
  await new Promise((resolve) => child.once("close", resolve));
  return { cold, warm };
}

/** `gyre --mode json -p`: spawn → the first text delta line. */
function printRound() {
  return new Promise((resolve, reject) => {
    const spawned = performance.now();
    const child = spawn(process.execPath, [gyreBin, ...flags, "--mode", "json", "-p", "hi"], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let first;
    let pending = "";
    child.stdout.setEncoding("utf8").on("data", (text) => {
      pending += text;
      if (first === undefined && /"type":"text_delta"/.test(pending)) first = performance.now() - spawned;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 && first !== undefined ? resolve(first) : reject(new Error(`gyre -p exited ${code} without a token`)),
    );
  });
}

const cold = [];
const warm = [];
const print = [];
try {
  for (let round = 0; round < rounds; round++) {
    const acp = await acpRound(3);
    cold.push(acp.cold);
    warm.push(...acp.warm);
    print.push(await printRound());
  }
} finally {
  await server.close();
  await rm(home, { recursive: true, force: true });
}

const row = (item, values, note) =>
  `| ${item} | ${median(values).toFixed(1)} ms | - | - | ${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)} | - | ${note} |`;
console.log(
  [
    "| item | gyre | pi | ratio | min–max | peak RSS | note |",
    "|---|---:|---:|---:|---:|---:|---|",
    row(
      "acp: session/prompt → first chunk (warm)",
      warm,
      `agent and session up; ${warm.length} prompts over ${rounds} processes`,
    ),
    row(
      "acp: spawn → initialize → session/new → first chunk (cold)",
      cold,
      `${rounds} processes; an editor pays this once`,
    ),
    row(
      "-p: spawn → first token",
      print,
      `gyre --mode json -p, first text_delta; ${rounds} runs; same fake model server`,
    ),
  ].join("\n"),
);
