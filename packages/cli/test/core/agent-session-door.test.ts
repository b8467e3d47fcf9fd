import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { openTestSession, reply } from "./session-helpers.js";

const text = (value: string): FauxScriptItem => ({ content: [{ type: "text", text: value }] });

function createSession(script: FauxScriptItem[], options: { history?: boolean; tokenDelayMs?: number } = {}) {
  const faux = createFauxModel(script, options.tokenDelayMs ? { tokenDelayMs: options.tokenDelayMs } : {});
  const store = SessionManager.inMemory({ cwd: "/work" });
  if (options.history) {
    for (let turn = 0; turn < 3; turn++) {
      store.appendMessage({ role: "user", content: `request ${turn} ${"x".repeat(400)}`, timestamp: 1 });
      store.appendMessage(reply(`answer ${turn} ${"y".repeat(400)}`));
    }
  }
  const { session, events } = openTestSession(faux.model, store);
  return { faux, store, session, events };
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("AgentSession as the one door", () => {
  it("delivers a message queued as the run ends before prompt() resolves", async () => {
    const { faux, session } = createSession([text("first answer"), text("answer to the late message")]);
    // Steered from the agent_end listener: the run no longer reads its queues then.
    session.subscribe((event) => {
      if (event.type === "agent_end" && faux.contexts.length === 1) session.steer("one more thing");
    });
    await session.prompt("start");
    expect(session.getLastAssistantText()).toBe("answer to the late message");
    expect(JSON.stringify(faux.contexts[1]?.messages)).toContain("one more thing");
    expect(session.state.isRunning).toBe(false);
    expect(session.takeQueued()).toEqual([]);
  });

  it("gives queued messages back through takeQueued and never sends them", async () => {
    const { faux, session } = createSession([text("only answer")]);
    session.followUp("later");
    session.steer("sooner");
    expect(session.takeQueued()).toEqual(["later", "sooner"]);
    await session.prompt("go");
    expect(faux.contexts).toHaveLength(1);
    expect(JSON.stringify(faux.contexts[0]?.messages)).not.toContain("sooner");
  });

  it("stops a manual compaction on abort() and leaves the session as it was", async () => {
    const { store, session, events } = createSession([text(`Summary ${"s".repeat(4000)}`)], {
      history: true,
      tokenDelayMs: 5,
    });
    const entriesBefore = store.getEntries().length;
    const compacting = session.compact();
    session.subscribe((event) => {
      if (event.type === "compaction_start") void session.abort();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await session.abort();
    expect(await compacting).toBe(false);
    const end = events.find((event) => event.type === "compaction_end");
    expect(end && "error" in end && end.error).toBeTruthy();
    expect(store.getEntries()).toHaveLength(entriesBefore);
    expect(session.state.isRunning).toBe(false);
  });

  it("navigates to a user message and hands its text back for editing", async () => {
    const { session } = createSession([text("a1"), text("a2")]);
    await session.prompt("first question");
    await session.prompt("second question");
    const tree = session.tree();
    const userEntry = [...tree.activePath]
      .map((id) =>
        tree.nodes
          .flatMap(function walk(node): typeof tree.nodes {
            return [node, ...node.children.flatMap(walk)];
          })
          .find((node) => node.entry.id === id),
      )
      .find(
        (node) =>
          node?.entry.type === "message" &&
          node.entry.message.role === "user" &&
          JSON.stringify(node.entry.message.content).includes("second"),
      );
    expect(userEntry).toBeDefined();
    const moved = await session.navigate(userEntry?.entry.id ?? "");
    expect(moved.editText).toBe("second question");
    expect(session.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("reports a throwing listener as a notice instead of writing to stderr", async () => {
    const { session, events } = createSession([text("fine")]);
    session.subscribe((event) => {
      if (event.type === "agent_start") throw new Error("listener broke");
    });
    await session.prompt("go");
    expect(events).toContainEqual({
      type: "notice",
      level: "warning",
      source: "listener",
      message: "an event listener failed: listener broke",
    });
  });

  it("opens another session by path and says so with session_changed", async () => {
    dir = await mkdtemp(join(tmpdir(), "gyre-door-"));
    const other = SessionManager.create({ sessionsDir: dir, cwd: "/work" });
    other.appendMessage({ role: "user", content: "from the other session", timestamp: 1 });
    other.appendMessage(reply("other answer"));
    await other.flush();
    const path = other.path ?? "";
    await other.close();
    const { session, events } = createSession([]);
    await session.open(path);
    expect(session.state.sessionFile).toBe(path);
    expect(session.getLastAssistantText()).toBe("other answer");
    // The switch is an op: once done, nothing waits and the session says it is idle.
    expect(events.slice(-2)).toEqual([
      { type: "session_changed", sessionId: session.state.sessionId, sessionFile: path },
      { type: "session_idle" },
    ]);
    await session.dispose();
  });
});
