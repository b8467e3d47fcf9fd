import { complete, GyreError } from "@gyre/ai";
import { createFauxModel } from "@gyre/ai/testing";
import { describe, expect, it } from "vitest";
import { assistantMessage, tempDir, toolCall, toolResult, userMessage } from "../../../test/session/helpers.js";
import { SessionManager } from "../session/session-manager.js";
import type { SessionEntry } from "../session/types.js";
import { buildContextMessages, COMPACTION_SUMMARY_PREFIX } from "./build-context-messages.js";
import { compact } from "./compact.js";
import { estimateContextTokens } from "./estimate-tokens.js";
import { isContextOverflow } from "./is-context-overflow.js";

const INSTRUCTION =
  "Never modify package.json. Use tabs, not spaces, in src/legacy/*.c — and keep the `--strict` flag!";
const bigOutput = "x".repeat(8_000); // ~2,000 tokens per tool result

/** A session of `turns` user turns, each with a read and an edit whose results are large. */
function fillSession(session: SessionManager, turns: number, firstUserText = INSTRUCTION): void {
  for (let turn = 0; turn < turns; turn++) {
    session.appendMessage(userMessage(turn === 0 ? firstUserText : `Turn ${turn}: continue with step ${turn}.`));
    session.appendMessage(
      assistantMessage(
        [
          toolCall(`r${turn}`, "read", { path: `src/file-${turn}.ts` }),
          toolCall(`e${turn}`, "edit", { path: `src/out-${turn}.ts`, edits: [] }),
        ],
        "toolUse",
      ),
    );
    session.appendMessage(toolResult(`r${turn}`, "read", bigOutput));
    session.appendMessage(toolResult(`e${turn}`, "edit", "edited"));
    session.appendMessage(assistantMessage([{ type: "text", text: `Step ${turn} done.` }]));
  }
}

function keptMessagesAreWhole(branch: SessionEntry[], firstKeptId: string): void {
  const kept = branch.slice(branch.findIndex((entry) => entry.id === firstKeptId));
  expect(kept[0]?.type === "message" && kept[0].message.role).toBe("user");
  const calls = new Set<string>();
  for (const entry of kept) {
    if (entry.type !== "message") continue;
    if (entry.message.role === "assistant")
      for (const block of entry.message.content) if (block.type === "toolCall") calls.add(block.id);
    if (entry.message.role === "toolResult") expect(calls.has(entry.message.toolCallId)).toBe(true);
  }
}

describe("compact", () => {
  it("keeps the user's instructions verbatim even when the model's summary drops them", async () => {
    const faux = createFauxModel([
      { content: [{ type: "text", text: "## Goal\nThe user wants some files changed." }] },
    ]);
    const session = SessionManager.inMemory({ cwd: "/p" });
    fillSession(session, 6);
    const branch = session.getBranch();
    const result = await compact({
      branchEntries: branch,
      model: faux.model,
      keepRecentTokens: 5_000,
      focus: "the edits",
    });
    expect(result.summary).toContain("The user wants some files changed.");
    expect(result.summary).toContain(`<user-message n="1">\n${INSTRUCTION}\n</user-message>`);
    expect(result.summary).toMatch(/## Files read\n- src\/file-0\.ts\n- src\/file-1\.ts/);
    expect(result.summary).toMatch(/## Files modified\n- src\/out-0\.ts/);
    expect(result.details?.userMessages[0]).toBe(INSTRUCTION);
    expect(result.tokensBefore).toBeGreaterThan(12_000);
    keptMessagesAreWhole(branch, result.firstKeptEntryId);
    const request = faux.contexts[0];
    expect(request?.systemPrompt).toMatch(/VERBATIM/);
    const prompt = JSON.stringify(request?.messages);
    expect(prompt).toContain("the edits");
    expect(prompt).toContain("src/file-0.ts");
  });

  it("never separates a tool result from its call, whatever the budget", async () => {
    const session = SessionManager.inMemory({ cwd: "/p" });
    fillSession(session, 5);
    const branch = session.getBranch();
    for (const keepRecentTokens of [1, 500, 2_100, 4_000, 7_000]) {
      const faux = createFauxModel([{ content: [{ type: "text", text: "summary" }] }]);
      const result = await compact({ branchEntries: branch, model: faux.model, keepRecentTokens });
      keptMessagesAreWhole(branch, result.firstKeptEntryId);
    }
  });

  it("carries the earlier summary and user messages into the next compaction", async () => {
    const faux = createFauxModel([
      { content: [{ type: "text", text: "First summary." }] },
      { content: [{ type: "text", text: "Second summary." }] },
    ]);
    const session = SessionManager.inMemory({ cwd: "/p" });
    fillSession(session, 4);
    session.appendCompaction(
      await compact({ branchEntries: session.getBranch(), model: faux.model, keepRecentTokens: 3_000 }),
    );
    fillSession(session, 4, "Second task: also port the tests. Do not use mocks.");
    const second = await compact({ branchEntries: session.getBranch(), model: faux.model, keepRecentTokens: 3_000 });
    expect(JSON.stringify(faux.contexts[1]?.messages)).toContain("First summary.");
    expect(second.details?.userMessages).toContain(INSTRUCTION);
    expect(second.details?.userMessages).toContain("Second task: also port the tests. Do not use mocks.");
    expect(second.summary.startsWith("Second summary.")).toBe(true);
    session.appendCompaction(second);
    const messages = session.buildContext().messages;
    expect(messages[0]).toMatchObject({ role: "user", content: expect.stringContaining(COMPACTION_SUMMARY_PREFIX) });
    expect(JSON.stringify(messages[0])).toContain(JSON.stringify(INSTRUCTION).slice(1, -1));
  });

  it("fails clearly when there is nothing to compact or the model fails, and never retries", async () => {
    const session = SessionManager.inMemory({ cwd: "/p" });
    session.appendMessage(userMessage("hello"));
    session.appendMessage(assistantMessage([{ type: "text", text: "hi" }]));
    const idle = createFauxModel([]);
    await expect(
      compact({ branchEntries: session.getBranch(), model: idle.model, keepRecentTokens: 100_000 }),
    ).rejects.toThrow(/Nothing to compact/);
    fillSession(session, 3);
    const failing = createFauxModel([{ error: "503 overloaded" }, { content: [{ type: "text", text: "unused" }] }]);
    const attempt = compact({ branchEntries: session.getBranch(), model: failing.model, keepRecentTokens: 1_000 });
    await expect(attempt).rejects.toThrow(GyreError);
    await expect(attempt).rejects.toThrow(/Compaction failed.*503 overloaded/);
    expect(failing.remaining()).toBe(1);
  });

  it("says so when the summary request itself overflows the window, and what to do next", async () => {
    const session = SessionManager.inMemory({ cwd: "/p" });
    fillSession(session, 3);
    const overflowing = createFauxModel([{ error: "prompt is too long: 250000 tokens > 200000 maximum" }]);
    await expect(
      compact({ branchEntries: session.getBranch(), model: overflowing.model, keepRecentTokens: 1_000 }),
    ).rejects.toThrow(
      /^Compaction could not fit the window: the summary request was itself too long for .*'s \d+-token context \(prompt is too long: 250000 tokens > 200000 maximum\)\. Run \/compact again with a smaller compaction\.keepRecentTokens, or start a new session/,
    );
  });

  it("recovers from a provider overflow: compact once, then the context fits and resumes from disk the same", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/p" });
    fillSession(session, 12);
    const faux = createFauxModel([
      { error: "400 prompt is too long: 26000 tokens > 20000 maximum" },
      { content: [{ type: "text", text: "## Goal\nChange the files step by step." }] },
      (context) => ({ content: [{ type: "text", text: `fits: ${context.messages.length} messages` }] }),
    ]);
    const model = { ...faux.model, contextWindow: 20_000 };
    const before = session.buildContext().messages;
    expect(estimateContextTokens(before)).toBeGreaterThan(model.contextWindow);
    const first = await complete(model, { messages: before.flatMap((m) => (m.role === "custom" ? [] : [m])) });
    expect(isContextOverflow(first)).toBe(true);
    session.appendCompaction(await compact({ branchEntries: session.getBranch(), model, keepRecentTokens: 6_000 }));
    const after = session.buildContext().messages;
    expect(estimateContextTokens(after)).toBeLessThan(model.contextWindow - 4_096);
    const retry = await complete(model, { messages: after.flatMap((m) => (m.role === "custom" ? [] : [m])) });
    expect(retry.stopReason).toBe("stop");
    expect(isContextOverflow(retry)).toBe(false);
    await session.close();
    const reopened = await SessionManager.open(session.path as string, { readOnly: true });
    expect(reopened.buildContext().messages).toEqual(after);
    expect(buildContextMessages(reopened.getBranch())).toEqual(after);
    expect(reopened.getEntries().filter((entry) => entry.type === "message")).toHaveLength(60);
  });
});
