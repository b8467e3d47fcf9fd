import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Block = { type: "text"; text: string } | { type: "toolCall"; name: string; arguments: Record<string, unknown> };

async function withScript(responses: { content: Block[] }[]) {
  const { cwd, home } = await createWorkspace();
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify(responses));
  return { cwd, home, script };
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const call = (name: string, args: Record<string, unknown>) => ({
  content: [{ type: "toolCall" as const, name, arguments: args }],
});

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("long tasks through the CLI", () => {
  it("runs a subagent through the task tool, links its own session file and ends JSON mode with the result line", async () => {
    const { cwd, home, script } = await withScript([
      call("task", { description: "read the notes", prompt: "Read notes.md and say what it holds.", agent: "explore" }),
      call("read", { path: "notes.md" }),
      text("notes.md holds one line: alpha."),
      text("The subagent says notes.md holds alpha."),
    ]);
    await writeFile(join(cwd, "notes.md"), "alpha\n");
    const result = await runCli(
      ["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, "--tools", "read,task", "go"],
      { cwd, env: cliEnv(home) },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const taskEnd = lines.find((line) => line.type === "tool_execution_end" && line.toolName === "task") as {
      result: { content: { text: string }[]; details: { sessionFile?: string; agent: string } };
    };
    expect(taskEnd.result.content[0]?.text).toMatch(
      /^notes\.md holds one line: alpha\.\n\n\[subagent explore: 2 model calls, 1 tool call/,
    );
    const childEvents = lines.filter((line) => line.type === "subagent_event");
    expect(childEvents.length).toBeGreaterThan(4);
    expect(childEvents.every((line) => typeof line.parentToolCallId === "string" && line.agent === "explore#1")).toBe(
      true,
    );
    const childFile = taskEnd.result.details.sessionFile;
    expect(childFile).toBeDefined();
    const childLines = (await readFile(childFile as string, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(childLines[0]).toMatchObject({ type: "session", parentSession: expect.stringMatching(/\.jsonl$/) });
    expect(childLines.filter((line) => line.type === "message").map((line) => line.message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    const last = lines.at(-1);
    expect(last).toMatchObject({
      type: "result",
      reason: "stop",
      turns: 2,
      text: "The subagent says notes.md holds alpha.",
      sessionFile: expect.stringMatching(/\.jsonl$/),
      agents: [
        expect.objectContaining({ agent: "main", turns: 2 }),
        expect.objectContaining({ agent: "explore#1", turns: 2 }),
      ],
    });
    const sessionDirs = await readdir(join(home, "sessions"));
    expect(sessionDirs).toHaveLength(1);
  });

  it("catches a loop: warns the model, then ends the run with reason loop and exit 1", async () => {
    const same = call("read", { path: "notes.md" });
    const { cwd, home, script } = await withScript([...Array.from({ length: 8 }, () => same), text("never reached")]);
    await writeFile(join(cwd, "notes.md"), "alpha\n");
    const result = await runCli(["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, "go"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /gyre: The run was stopped in a loop: You called read with the same arguments 6 times/,
    );
    const lines = jsonLines(result.stdout);
    const warning = lines.findIndex((line) => line.type === "loop_warning");
    const detected = lines.findIndex((line) => line.type === "loop_detected");
    expect(warning).toBeGreaterThan(0);
    expect(detected).toBeGreaterThan(warning);
    const steered = lines.find(
      (line) => line.type === "message_end" && JSON.stringify(line.message).includes("[gyre loop check]"),
    );
    expect(steered).toBeDefined();
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      reason: "loop",
      turns: 6,
      stoppedBy: expect.stringMatching(/loop/),
    });
  });

  it("keeps the todo list in the JSON events", async () => {
    const { cwd, home, script } = await withScript([
      call("todo", {
        todos: [
          { content: "read", status: "in_progress" },
          { content: "fix", status: "pending" },
        ],
      }),
      text("planned"),
    ]);
    const result = await runCli(
      ["--mode", "json", "-p", "--provider", "faux", "--faux-script", script, "--tools", "read,todo", "plan"],
      { cwd, env: cliEnv(home) },
    );
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).find((line) => line.type === "todo_update")).toEqual({
      type: "todo_update",
      todos: [
        { content: "read", status: "in_progress" },
        { content: "fix", status: "pending" },
      ],
    });
  });

  it("prints an answer that matches --output-schema as JSON, after one fix when the first does not", async () => {
    const { cwd, home, script } = await withScript([text("The count is 3."), text('```json\n{"count": 3}\n```')]);
    const schema = join(home, "schema.json");
    await writeFile(
      schema,
      JSON.stringify({ type: "object", properties: { count: { type: "integer" } }, required: ["count"] }),
    );
    const fixed = await runCli(
      ["-p", "--provider", "faux", "--faux-script", script, "--output-schema", schema, "count"],
      {
        cwd,
        env: cliEnv(home),
      },
    );
    expect(fixed.stderr).toBe("");
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toBe('{"count":3}\n');

    const never = await withScript([text("no"), text("still no")]);
    await writeFile(join(never.home, "schema.json"), await readFile(schema, "utf8"));
    const failed = await runCli(
      [
        "--mode",
        "json",
        "-p",
        "--provider",
        "faux",
        "--faux-script",
        never.script,
        "--output-schema",
        join(never.home, "schema.json"),
        "count",
      ],
      { cwd: never.cwd, env: cliEnv(never.home) },
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/gyre: The answer does not match the output schema: the answer is not JSON/);
    const requests = jsonLines(failed.stdout).filter(
      (line) => line.type === "message_end" && (line.message as { role: string }).role === "user",
    );
    expect(JSON.stringify(requests.at(-1))).toMatch(/does not match the required JSON Schema/);

    // RPC answers many prompts, so one schema cannot apply (interactive mode is refused the same way;
    // without a terminal, as here, `gyre --output-schema s.json hi` runs as print mode).
    const rpc = await runCli(["--mode", "rpc", "--output-schema", schema], { cwd, env: cliEnv(home) });
    expect(rpc.code).toBe(2);
    expect(rpc.stderr).toMatch(/--output-schema works with -p or --mode json/);
    const missing = await runCli(["-p", "--output-schema", join(home, "nope.json"), "hi"], { cwd, env: cliEnv(home) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read the output schema .*nope\.json/);
  });
});
