import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AssistantMessage, ToolResultMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { createLoopDetector } from "../../src/core/governor/loop-detector.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Block = { type: "text"; text: string } | { type: "toolCall"; name: string; arguments: Record<string, unknown> };
const call = (name: string, args: Record<string, unknown>) => ({
  content: [{ type: "toolCall", name, arguments: args }] as Block[],
});
const answer = { content: [{ type: "text", text: "finished" }] as Block[] };
const bash = (command: string) => call("bash", { command });

/** Runs a scripted session through the real CLI (real bash under the sandbox) and returns its JSON lines and session file. */
async function record(responses: { content: Block[] }[], files: Record<string, string> = {}) {
  const { cwd, home } = await createWorkspace();
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify(responses));
  for (const [name, text] of Object.entries(files)) await writeFile(join(cwd, name), text);
  const tools = ["--tools", "read,write,bash"];
  const result = await runCli(["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, ...tools, "go"], {
    cwd,
    env: cliEnv(home),
  });
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; sessionFile?: string; reason?: string });
  const sessionFile = lines.at(-1)?.sessionFile;
  if (typeof sessionFile !== "string") throw new Error(`no result line: ${result.stderr}`);
  return { lines, sessionFile, code: result.code };
}

/** Feeds a recorded session file to a fresh loop detector turn by turn; returns the verdicts that were not "continue". */
async function replay(sessionFile: string): Promise<string[]> {
  const messages = (await readFile(sessionFile, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; message?: AssistantMessage | ToolResultMessage })
    .filter((entry) => entry.type === "message" && entry.message !== undefined)
    .map((entry) => entry.message as AssistantMessage | ToolResultMessage);
  const detector = createLoopDetector();
  const verdicts: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const results: ToolResultMessage[] = [];
    for (const next of messages.slice(index + 1)) {
      if (next.role !== "toolResult") break;
      results.push(next);
    }
    const verdict = detector.observeTurn(message, results);
    if (verdict.action !== "continue") verdicts.push(`${verdict.action} ${verdict.pattern}`);
  });
  return verdicts;
}

const loopEvents = (lines: { type: string }[]) =>
  lines.filter((line) => line.type === "loop_warning" || line.type === "loop_detected");

describe("loop detector false positives on recorded sessions", () => {
  it("stays quiet on legitimate polling: a sleeping status check with the same answer, a counter that moves", async () => {
    const polls = Array.from({ length: 12 }, () => bash("sleep 0.05; cat status.txt"));
    const counts = Array.from({ length: 10 }, () => bash("echo tick >> ticks.log; wc -l < ticks.log"));
    const { lines, sessionFile, code } = await record([...polls, ...counts, answer], { "status.txt": "running\n" });
    expect(code).toBe(0);
    expect(loopEvents(lines)).toEqual([]);
    expect(lines.at(-1)).toMatchObject({ type: "result", reason: "stop", turns: 23 });
    expect(await replay(sessionFile)).toEqual([]);
  });

  it("stays quiet on a test run after each edit, the same failure three times before the fix", async () => {
    const test = bash("grep -q fixed app.js && echo PASS || { echo FAIL: app.js is not fixed; exit 1; }");
    const edits = ["// try one", "// try two", "// try three", "// fixed"].flatMap((line, n) => [
      call("write", { path: "app.js", content: `${line}\nexport const n = ${n};\n` }),
      test,
    ]);
    const { lines, sessionFile, code } = await record([...edits, answer], { "app.js": "export const n = 0;\n" });
    expect(code).toBe(0);
    const outputs = lines.filter((line) => line.type === "tool_execution_end").map((line) => JSON.stringify(line));
    expect(outputs.filter((text) => text.includes("FAIL: app.js is not fixed"))).toHaveLength(3);
    expect(outputs.at(-1)).toContain("PASS");
    expect(loopEvents(lines)).toEqual([]);
    expect(await replay(sessionFile)).toEqual([]);
  });

  it("still catches the loop in a recorded session that has one (the replay can fail)", async () => {
    const same = Array.from({ length: 8 }, () => bash("cat status.txt"));
    const { lines, sessionFile } = await record([...same, answer], { "status.txt": "running\n" });
    expect(loopEvents(lines).map((line) => line.type)).toEqual(["loop_warning", "loop_detected"]);
    expect(await replay(sessionFile)).toEqual(["warn repeated_call", "stop repeated_call"]);
  });
});
