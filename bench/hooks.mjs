// What a hook costs per tool call (issue 27): the session's PreToolUse/PostToolUse path with no
// hook configured, with one empty PreToolUse hook (`sh -c :`), and with empty PreToolUse and
// PostToolUse hooks. Each call builds the stdin JSON, spawns `sh -c` in its own process group,
// reads its output and folds it, as a real run does. Target: ≤ 5 ms over no hook.
// Usage: node bench/hooks.mjs [--rounds 200]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import * as path from "node:path";
import { importSources } from "./lib/import-sources.mjs";
import { parseOptions } from "./lib/item-main.mjs";

const rounds = parseOptions().rounds ?? 200;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const work = mkdtempSync(path.join(tmpdir(), "gyre-bench-hooks-"));
try {
  const { HookRunner, SessionHooks } = await importSources([
    'export { HookRunner } from "./packages/cli/src/core/hooks/hook-runner.ts";',
    'export { SessionHooks } from "./packages/cli/src/core/hooks/session-hooks.ts";',
  ]);
  const empty = (event) => ({ event, matcher: /^(?:Bash)$/, command: ":", timeoutSeconds: 600, source: "bench" });
  const sessionWith = (commands) =>
    new SessionHooks({
      runner: new HookRunner(commands, { projectDir: work, env: process.env }),
      cwd: work,
      session: () => ({ id: "bench", file: undefined }),
      permissionMode: () => "default",
    });
  // The floor: what any hook runner pays to start `sh -c :` from Node and wait for it, with stdin
  // written and closed as a hook's is. A hook's cost over no hook is compared with this.
  const bareSpawn = {
    preToolUse: () =>
      new Promise((resolve) => {
        const child = spawn("sh", ["-c", ":"], { detached: true, stdio: ["pipe", "pipe", "pipe"] });
        child.stdin.on("error", () => {});
        child.stdin.end("{}");
        child.on("close", resolve);
      }),
    afterToolCall: async () => {},
  };
  const setups = [
    ["no hook", sessionWith([])],
    ["bare spawn of sh -c : (no gyre code)", bareSpawn],
    ["empty PreToolUse", sessionWith([empty("PreToolUse")])],
    ["empty PreToolUse + PostToolUse", sessionWith([empty("PreToolUse"), empty("PostToolUse")])],
  ];
  const signal = new AbortController().signal;
  const times = setups.map(() => []);
  // Interleaved, so load swings hit every setup alike; round 0 warms up.
  for (let round = 0; round <= rounds; round++)
    for (const [index, [, hooks]] of setups.entries()) {
      const toolCall = { type: "toolCall", id: `call-${round}`, name: "bash", arguments: { command: "ls" } };
      const input = { toolCall, args: toolCall.arguments, assistantMessage: {}, context: { messages: [] } };
      const started = performance.now();
      await hooks.preToolUse(input, signal);
      await hooks.afterToolCall(
        { ...input, result: { content: [{ type: "text", text: "a\nb\n" }] }, isError: false },
        signal,
      );
      if (round > 0) times[index].push(performance.now() - started);
    }
  const base = median(times[0]);
  const floor = median(times[1]);
  console.log(`hooks: ${rounds} tool calls per setup (interleaved), Bash call, hook command ":"`);
  for (const [index, [name]] of setups.entries()) {
    const value = median(times[index]);
    const over =
      index === 0
        ? ""
        : index === 1
          ? "  (the floor: one process start)"
          : `  (+${(value - base).toFixed(2)} ms over no hook, ${(value / floor).toFixed(2)}× the floor; target ≤ 5 ms)`;
    console.log(`${`${name} (median ms/call)`.padEnd(56)} ${value.toFixed(3)}${over}`);
  }
  console.log(`load average (1 min) at the end               ${loadavg()[0].toFixed(1)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
