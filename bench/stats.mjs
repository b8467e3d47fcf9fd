// `node bench/stats.mjs [--sessions 1000] [--turns 40]`: how long `gyre stats` takes over many
// sessions on disk. Writes the sessions into a temp GYRE_HOME (each turn: a user line, an answer
// with usage and a 2 KB tool result), then times the built CLI three times and prints the median.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(argv[at + 1]);
};
const sessions = option("sessions", 1000);
const turns = option("turns", 40);
const bin = fileURLToPath(new URL("../packages/cli/bin/gyre.js", import.meta.url));
const home = mkdtempSync(join(tmpdir(), "gyre-bench-stats-"));
const start = Date.parse("2026-11-01T00:00:00Z");
const usage = {
  input: 1200,
  output: 300,
  cacheRead: 8000,
  cacheWrite: 400,
  totalTokens: 9900,
  cost: { input: 0.003, output: 0.004, cacheRead: 0.002, cacheWrite: 0.001, total: 0.01 },
};
const filler = "x".repeat(2048);
let bytes = 0;
for (let index = 0; index < sessions; index++) {
  const dir = join(home, "sessions", `project-${index % 20}`);
  mkdirSync(dir, { recursive: true });
  const at = start + index * 3_600_000;
  const lines = [
    JSON.stringify({
      type: "session",
      version: 1,
      id: randomUUID(),
      timestamp: new Date(at).toISOString(),
      cwd: `/work/project-${index % 20}`,
    }),
  ];
  for (let turn = 0; turn < turns; turn++) {
    const time = at + turn * 1000;
    const base = { parentId: null, timestamp: new Date(time).toISOString() };
    lines.push(
      JSON.stringify({
        type: "message",
        id: "0000000a",
        ...base,
        message: { role: "user", content: "go on", timestamp: time },
      }),
    );
    lines.push(
      JSON.stringify({
        type: "message",
        id: "0000000b",
        ...base,
        message: {
          role: "assistant",
          content: [{ type: "text", text: "ok" }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: turn % 2 ? "claude-sonnet" : "claude-haiku",
          usage,
          stopReason: "toolUse",
          timestamp: time,
        },
      }),
    );
    lines.push(
      JSON.stringify({
        type: "message",
        id: "0000000c",
        ...base,
        message: {
          role: "toolResult",
          toolCallId: "c",
          toolName: "read",
          content: [{ type: "text", text: filler }],
          isError: false,
          timestamp: time,
        },
      }),
    );
  }
  const path = join(dir, `${new Date(at).toISOString().replace(/[:.]/g, "-")}_${randomUUID()}.jsonl`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  bytes += statSync(path).size;
}
const times = [];
for (let round = 0; round < 3; round++) {
  const began = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [bin, "stats", "--json"], {
    env: { PATH: process.env.PATH, GYRE_HOME: home, HOME: home },
    encoding: "utf8",
  });
  times.push(Number(process.hrtime.bigint() - began) / 1e6);
  if (run.status !== 0) throw new Error(`gyre stats failed: ${run.stderr}`);
  const calls = JSON.parse(run.stdout).totals.calls;
  if (calls !== sessions * turns) throw new Error(`gyre stats counted ${calls} calls, expected ${sessions * turns}`);
}
times.sort((a, b) => a - b);
console.log(
  `gyre stats over ${sessions} sessions (${turns} turns each, ${(bytes / 1e6).toFixed(0)} MB): median ${times[1].toFixed(0)} ms (runs: ${times.map((time) => time.toFixed(0)).join(", ")} ms)`,
);
if (!process.env.KEEP) rmSync(home, { recursive: true, force: true });
