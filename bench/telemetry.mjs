// `node bench/telemetry.mjs [--rounds 5]`: what OpenTelemetry costs. A `-p` run (one answer) and a
// 100-turn run (a read tool call per turn) against a local fake model server, telemetry off and on
// (exporting to a local OTLP/HTTP receiver), median wall time of each; the target is ≤ 5 % overhead.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";

const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf("--rounds") + 1] || 5) || 5;
const bin = fileURLToPath(new URL("../packages/cli/bin/gyre.js", import.meta.url));
const TURNS = 100;

const model = await startFakeModelServer({
  respond: ({ body }) => {
    const text = JSON.stringify(body.messages ?? []);
    const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
    if (text.includes("MANY-TURNS") && results < TURNS - 1)
      return { toolCalls: [{ id: `r${results}`, name: "read", arguments: { path: "notes.md", offset: results + 1 } }] };
    return { text: "done" };
  },
});
let spansBytes = 0;
const receiver = createServer((request, response) => {
  request.on("data", (chunk) => {
    spansBytes += chunk.length;
  });
  request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const otlp = `http://127.0.0.1:${receiver.address().port}`;

const root = mkdtempSync(join(tmpdir(), "gyre-bench-otel-"));
writeFileSync(join(root, "notes.md"), Array.from({ length: TURNS + 1 }, (_, line) => `line ${line}`).join("\n"));

function run(prompt, telemetry) {
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    GYRE_HOME: join(root, "home"),
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: `${model.url}/v1`,
  };
  if (telemetry) env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp;
  const args = [bin, "-p", "--provider", "openai", "--model", "gpt-4o", "--tools", "read", "--no-session", prompt];
  return new Promise((resolve, reject) => {
    const began = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - began) / 1e6)
        : reject(new Error(`gyre exited ${code}: ${stderr}`)),
    );
  });
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
for (const [name, prompt] of [
  ["-p run, one answer", "hi"],
  [`${TURNS} turns`, "MANY-TURNS go"],
]) {
  const off = [];
  const on = [];
  for (let round = 0; round < rounds; round++) {
    off.push(await run(prompt, false));
    on.push(await run(prompt, true));
  }
  const [a, b] = [median(off), median(on)];
  rows.push(`| ${name} | ${a.toFixed(0)} ms | ${b.toFixed(0)} ms | ${(((b - a) / a) * 100).toFixed(1)} % |`);
}
console.log(`| run | telemetry off | telemetry on | overhead |\n|---|---|---|---|\n${rows.join("\n")}`);
console.log(`(median of ${rounds}; ${(spansBytes / 1024).toFixed(0)} KiB of OTLP JSON received)`);
await model.close();
receiver.close();
