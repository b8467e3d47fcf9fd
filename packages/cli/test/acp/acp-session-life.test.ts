import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../helpers/run-cli.js";
import { eventually } from "../interactive/gyre-in-tmux.js";
import { type AcpAgentProcess, initialize, startAcpAgent } from "./acp-agent-process.js";

const running: AcpAgentProcess[] = [];
afterEach(async () => {
  for (const agent of running.splice(0)) if (agent.child.exitCode === null) await agent.kill();
});

async function script(home: string, name: string, responses: unknown[]): Promise<string> {
  const file = join(home, name);
  await writeFile(file, JSON.stringify(responses));
  return file;
}

function start(...args: Parameters<typeof startAcpAgent>): AcpAgentProcess {
  const agent = startAcpAgent(...args);
  running.push(agent);
  return agent;
}

const SLEEP = "sleep 27.31";
const sleeping = () => execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes(SLEEP);

describe("gyre acp: the whole life of an editor session", () => {
  it("initialize → new → prompt with a diff → permission allowed and rejected → cancel mid-tool → load after a kill", async () => {
    const { cwd, home } = await createWorkspace();
    const first = await script(home, "first.json", [
      {
        content: [
          { type: "thinking", thinking: "A file." },
          { type: "toolCall", name: "write", arguments: { path: "a.txt", content: "one\n" } },
        ],
      },
      {
        content: [
          { type: "toolCall", name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "one", newText: "two" }] } },
        ],
      },
      { content: [{ type: "text", text: "Wrote a.txt." }] },
      {
        content: [{ type: "toolCall", name: "bash", arguments: { command: "echo yes > allowed.txt", escalate: true } }],
      },
      { content: [{ type: "text", text: "Ran it." }] },
      {
        content: [{ type: "toolCall", name: "bash", arguments: { command: "echo no > rejected.txt", escalate: true } }],
      },
      { content: [{ type: "text", text: "It was rejected." }] },
      { content: [{ type: "toolCall", name: "bash", arguments: { command: `${SLEEP}; echo late > late.txt` } }] },
      { content: [{ type: "text", text: "never sent" }] },
    ]);
    let answer = "allow_once";
    const editor = start({
      cwd,
      home,
      args: ["--provider", "faux", "--faux-script", first],
      answer: () => ({ outcome: { outcome: "selected", optionId: answer } }),
    });
    const init = await initialize(editor.agent);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });
    expect(init.authMethods).toEqual([]);
    const created = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const id = created.sessionId;
    expect(created.modes?.currentModeId).toBe("default");
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["default", "plan"]);

    // A write then an edit: each a tool call of kind edit with a whole-file diff.
    const wrote = await editor.agent.request("session/prompt", {
      sessionId: id,
      prompt: [{ type: "text", text: "write a.txt please" }],
    });
    expect(wrote.stopReason).toBe("end_turn");
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("two\n");
    const calls = editor.updates(id, "tool_call");
    expect(calls.map((call) => [call.kind, call.title, call.locations?.[0]?.path])).toEqual([
      ["edit", "Write a.txt", join(cwd, "a.txt")],
      ["edit", "Edit a.txt", join(cwd, "a.txt")],
    ]);
    const diffs = editor
      .updates(id, "tool_call_update")
      .filter((update) => update.status === "completed")
      .map((update) => update.content?.[0]);
    expect(diffs).toEqual([
      { type: "diff", path: join(cwd, "a.txt"), oldText: null, newText: "one\n" },
      { type: "diff", path: join(cwd, "a.txt"), oldText: "one\n", newText: "two\n" },
    ]);
    expect(
      editor
        .updates(id, "agent_message_chunk")
        .map((chunk) => (chunk.content.type === "text" ? chunk.content.text : ""))
        .join(""),
    ).toBe("Wrote a.txt.");
    expect(editor.updates(id, "agent_thought_chunk").length).toBeGreaterThan(0);

    // An escalated bash call asks; allow once runs it.
    const allowed = await editor.agent.request("session/prompt", {
      sessionId: id,
      prompt: [{ type: "text", text: "run" }],
    });
    expect(allowed.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(1);
    const asked = editor.permissions[0];
    expect(asked?.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    expect(asked?.toolCall).toMatchObject({ kind: "execute", title: "Run `echo yes > allowed.txt`" });
    expect(await readFile(join(cwd, "allowed.txt"), "utf8")).toBe("yes\n");
    const ranId = asked?.toolCall.toolCallId;
    expect(editor.statusOf(id, ranId)).toBe("completed");

    // Reject once: the tool does not run and its call fails.
    answer = "reject_once";
    const rejected = await editor.agent.request("session/prompt", {
      sessionId: id,
      prompt: [{ type: "text", text: "again" }],
    });
    expect(rejected.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(2);
    const refusedId = editor.permissions[1]?.toolCall.toolCallId;
    expect(editor.statusOf(id, refusedId)).toBe("failed");
    expect(existsSync(join(cwd, "rejected.txt"))).toBe(false);

    // Cancel while bash sleeps: the prompt answers cancelled and the command is gone.
    const slow = editor.agent.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "slow" }] });
    await editor.waitFor(
      (update) => update.sessionUpdate === "tool_call" && update.kind === "execute" && update.title.includes("sleep"),
    );
    // The call is announced before its command starts: wait for the process itself.
    await eventually(async () => sleeping() || undefined, "the sleep command to start");
    const cancelledAt = Date.now();
    await editor.agent.notify("session/cancel", { sessionId: id });
    expect((await slow).stopReason).toBe("cancelled");
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
    await eventually(async () => !sleeping() || undefined, "the cancelled command to be gone");
    expect(existsSync(join(cwd, "late.txt"))).toBe(false);

    // Plan mode, then the editor (and its agent) is killed.
    await editor.agent.request("session/set_mode", { sessionId: id, modeId: "plan" });
    await editor.waitFor((update) => update.sessionUpdate === "current_mode_update" && update.currentModeId === "plan");
    // Every stdout line was a JSON-RPC 2.0 message.
    for (const line of editor.stdoutLines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    await editor.kill();

    // A new agent process loads the session: history replayed before the response, plan mode kept.
    const second = await script(home, "second.json", [{ content: [{ type: "text", text: "Welcome back." }] }]);
    const again = start({ cwd, home, args: ["--provider", "faux", "--faux-script", second] });
    await initialize(again.agent);
    const loaded = await again.agent.request("session/load", { sessionId: id, cwd, mcpServers: [] });
    const userTexts = again
      .updates(id, "user_message_chunk")
      .map((chunk) => (chunk.content.type === "text" ? chunk.content.text : ""));
    expect(userTexts).toEqual(["write a.txt please", "run", "again", "slow"]);
    const replayedText = again
      .updates(id, "agent_message_chunk")
      .map((chunk) => (chunk.content.type === "text" ? chunk.content.text : ""));
    expect(replayedText).toEqual(["Wrote a.txt.", "Ran it.", "It was rejected."]);
    expect(again.updates(id, "tool_call").map((call) => call.title)).toContain("Edit a.txt");
    expect(loaded.modes?.currentModeId).toBe("plan");
    expect(loaded.configOptions?.find((option) => option.id === "model")).toMatchObject({
      currentValue: "faux/faux-1",
    });
    const listed = await again.agent.request("session/list", { cwd });
    expect(listed.sessions.map((session) => session.sessionId)).toContain(id);
    const next = await again.agent.request("session/prompt", { sessionId: id, prompt: [{ type: "text", text: "hi" }] });
    expect(next.stopReason).toBe("end_turn");
    expect(await again.close()).toBe(0);
  }, 120_000);

  it("refuses to load a session another gyre has open, with a clear JSON-RPC error, then loads it once that one closed", async () => {
    const { cwd, home } = await createWorkspace();
    const file = await script(home, "s.json", [{ content: [{ type: "text", text: "hello" }] }]);
    const holder = start({ cwd, home, args: ["--provider", "faux", "--faux-script", file] });
    await initialize(holder.agent);
    const { sessionId } = await holder.agent.request("session/new", { cwd, mcpServers: [] });
    await holder.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });

    const other = start({ cwd, home, args: ["--provider", "faux", "--faux-script", file] });
    await initialize(other.agent);
    const refused = await other.agent.request("session/load", { sessionId, cwd, mcpServers: [] }).then(
      () => undefined,
      (error: { code: number; message: string; data?: { reason?: string } }) => error,
    );
    expect(refused?.code).toBe(-32600);
    expect(refused?.message).toMatch(/is open in another gyre \(process \d+/);
    expect(refused?.data?.reason).toBe("session_locked");
    // Nothing was forked: still one session file.
    const listed = await other.agent.request("session/list", {});
    expect(listed.sessions).toHaveLength(1);

    expect(await holder.close()).toBe(0);
    const loaded = await other.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("default");
    expect(other.updates(sessionId, "agent_message_chunk").map((chunk) => chunk.content)).toEqual([
      { type: "text", text: "hello" },
    ]);
    expect(await other.close()).toBe(0);
  }, 60_000);
});

describe("gyre acp: cancel while the editor is asked", () => {
  it("a cancel during a pending permission request withdraws it, runs nothing and answers cancelled", async () => {
    const { cwd, home } = await createWorkspace();
    const file = await script(home, "s.json", [
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "echo x > asked.txt", escalate: true } }] },
      { content: [{ type: "text", text: "never" }] },
    ]);
    let asked: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const editor = start({
      cwd,
      home,
      args: ["--provider", "faux", "--faux-script", file],
      // The user never answers.
      answer: () => {
        asked();
        return new Promise(() => {});
      },
    });
    await initialize(editor.agent);
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const prompt = editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    await waiting;
    await editor.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(existsSync(join(cwd, "asked.txt"))).toBe(false);
    const callId = editor.permissions[0]?.toolCall.toolCallId;
    expect(editor.statusOf(sessionId, callId)).toBe("failed");
    expect(await editor.close()).toBe(0);
  }, 60_000);
});
