import type { AgentMessage } from "@gyre/agent";
import { createFauxModel, type FauxScriptItem } from "@gyre/ai/testing";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { openTestSession, reply } from "./session-helpers.js";

const instruction = "Always use tabs for indentation and never touch vendor/.";

function createSession(script: FauxScriptItem[]) {
  const faux = createFauxModel(script);
  const store = SessionManager.inMemory({ cwd: "/work" });
  const history: AgentMessage[] = [
    { role: "user", content: instruction, timestamp: 1 },
    reply(`Understood ${"a".repeat(400)}`),
    { role: "user", content: `Earlier request ${"x".repeat(400)}`, timestamp: 3 },
    reply(`Done ${"b".repeat(400)}`),
    { role: "user", content: `Another request ${"y".repeat(400)}`, timestamp: 5 },
    reply(`Done again ${"c".repeat(400)}`),
  ];
  for (const message of history) store.appendMessage(message);
  const { session, events } = openTestSession(faux.model, store);
  return { faux, store, session, events };
}

const overflow: FauxScriptItem = { error: "prompt is too long: 250000 tokens > 200000 maximum" };

describe("AgentSession compaction", () => {
  it("compacts once after a context overflow and retries, keeping the user's instructions verbatim", async () => {
    const { faux, store, session, events } = createSession([
      overflow,
      { content: [{ type: "text", text: "Summary: the user is building things." }] },
      { content: [{ type: "text", text: "final answer" }] },
    ]);
    const result = await session.prompt("Now do the next step.");
    expect(result.reason).toBe("stop");
    expect(session.getLastAssistantText()).toBe("final answer");
    expect(events.filter((event) => event.type === "compaction_start")).toEqual([
      { type: "compaction_start", reason: "overflow" },
    ]);
    const retried = JSON.stringify(faux.contexts[2]?.messages);
    expect(retried).toContain(instruction);
    expect(retried).toContain("Now do the next step.");
    expect(store.getEntries().some((entry) => entry.type === "compaction")).toBe(true);
    expect(store.getEntries().filter((entry) => entry.type === "message").length).toBeGreaterThanOrEqual(8);
  });

  it("never loops: a second overflow after compacting is reported as the run's error", async () => {
    const { session, events } = createSession([
      overflow,
      { content: [{ type: "text", text: "Summary." }] },
      overflow,
      { content: [{ type: "text", text: "must not be used" }] },
    ]);
    const result = await session.prompt("go");
    expect(result.reason).toBe("error");
    expect(events.filter((event) => event.type === "compaction_start")).toHaveLength(1);
  });

  it("reports a failed compaction and keeps the overflow error", async () => {
    const { session, events } = createSession([overflow, { error: "summary model unavailable" }]);
    const result = await session.prompt("go");
    expect(result.reason).toBe("error");
    const end = events.find((event) => event.type === "compaction_end");
    expect(end && "error" in end && end.error).toMatch(/summary model unavailable/);
  });

  it("compacts manually with a focus and continues from the summary", async () => {
    const { faux, session } = createSession([
      { content: [{ type: "text", text: "Focused summary." }] },
      { content: [{ type: "text", text: "after compaction" }] },
    ]);
    expect(await session.compact("the tabs rule")).toBe(true);
    expect(JSON.stringify(faux.contexts[0]?.messages)).toContain("the tabs rule");
    await session.prompt("continue");
    expect(JSON.stringify(faux.contexts[1]?.messages)).toContain("Focused summary.");
  });
});
