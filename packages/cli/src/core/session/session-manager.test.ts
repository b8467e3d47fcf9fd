import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, tempDir, toolCall, toolResult, userMessage } from "../../../test/session/helpers.js";
import { createRedactor } from "./redact-secrets.js";
import { lockPathFor } from "./session-lock.js";
import { SessionManager } from "./session-manager.js";
import { sessionDirFor } from "./session-paths.js";

async function newSession() {
  const sessionsDir = await tempDir();
  const session = SessionManager.create({ sessionsDir, cwd: "/work/project", redact: createRedactor() });
  return { sessionsDir, session, path: session.path as string };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("SessionManager", () => {
  it("resumes on the model that answered last; a later model change wins over earlier answers", async () => {
    const { session, path } = await newSession();
    const answer = (provider: string, model: string) => ({
      ...assistantMessage([{ type: "text", text: "hi" }]),
      provider,
      model,
    });
    session.appendModelChange("anthropic", "claude-a", "https://proxy.example");
    session.appendMessage(userMessage("one"));
    session.appendMessage(answer("anthropic", "claude-a"));
    expect(session.buildContext().model).toEqual({
      provider: "anthropic",
      modelId: "claude-a",
      baseUrl: "https://proxy.example",
    });
    // Answered by another model without a model change (e.g. a fallback): the resume follows the answer.
    session.appendMessage(userMessage("two"));
    session.appendMessage(answer("openai", "gpt-b"));
    expect(session.buildContext().model).toEqual({ provider: "openai", modelId: "gpt-b" });
    await session.flush();
    await session.close();
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(reopened.buildContext().model).toEqual({ provider: "openai", modelId: "gpt-b" });
    const again = await newSession();
    again.session.appendMessage(userMessage("one"));
    again.session.appendMessage(answer("openai", "gpt-b"));
    again.session.appendModelChange("google", "gemini-c");
    expect(again.session.buildContext().model).toEqual({ provider: "google", modelId: "gemini-c" });
    await again.session.close();
  });

  it("creates the file with the first message, not before", async () => {
    const { session, path, sessionsDir } = await newSession();
    expect(path.startsWith(sessionDirFor(sessionsDir, "/work/project"))).toBe(true);
    expect(path).toMatch(/\/\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]{36}\.jsonl$/);
    session.appendModelChange("faux", "faux-1");
    await session.flush();
    expect(await exists(path)).toBe(false);
    session.appendMessage(userMessage("hello"));
    await session.flush();
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(["session", "model_change", "message"]);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: "session", version: 1, cwd: "/work/project" });
    expect(Object.keys(JSON.parse(lines[2] as string))).toEqual(["type", "id", "parentId", "timestamp", "message"]);
    await session.close();
  });

  it("never creates a file for a session without messages", async () => {
    const { session, path } = await newSession();
    session.setName("empty");
    await session.close();
    expect(await exists(dirname(path))).toBe(false);
  });

  it("appends entries that a reopen reads back as the same branch", async () => {
    const { session, path } = await newSession();
    session.appendMessage(userMessage("list files"));
    session.appendMessage(assistantMessage([toolCall("c1", "ls", { path: "." })], "toolUse"));
    session.appendMessage(toolResult("c1", "ls", "a.ts\nb.ts"));
    const last = session.appendMessage(assistantMessage([{ type: "text", text: "two files" }]));
    await session.close();
    const reopened = await SessionManager.open(path);
    expect(reopened.leafId).toBe(last);
    expect(reopened.getBranch().map((entry) => entry.type === "message" && entry.message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(reopened.getEntries()).toEqual(session.getEntries());
    await reopened.close();
  });

  it("branches from an earlier entry and keeps every entry", async () => {
    const { session, path } = await newSession();
    const first = session.appendMessage(userMessage("one"));
    const answer = session.appendMessage(assistantMessage([{ type: "text", text: "A" }]));
    session.appendMessage(userMessage("two"));
    session.branch(answer);
    const other = session.appendMessage(userMessage("two, differently"));
    expect(session.getEntry(other)?.parentId).toBe(answer);
    expect(session.getChildren(answer)).toHaveLength(2);
    expect(session.getBranch().map((entry) => entry.id)).toEqual([first, answer, other]);
    session.resetLeaf();
    const root = session.appendMessage(userMessage("fresh start"));
    expect(session.getEntry(root)?.parentId).toBeNull();
    await session.close();
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(reopened.getEntries()).toHaveLength(5);
    expect(reopened.getTree().map((node) => node.entry.id)).toEqual([first, root]);
    expect(reopened.leafId).toBe(root);
    expect(() => session.branch("ffffffff")).toThrow(/No entry ffffffff/);
  });

  it("records a branch summary where the conversation continues", async () => {
    const { session } = await newSession();
    const first = session.appendMessage(userMessage("one"));
    session.appendMessage(assistantMessage([{ type: "text", text: "A" }]));
    session.branchWithSummary(first, "Tried approach A; it failed.");
    const messages = session.buildContext().messages;
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatchObject({ role: "user", content: expect.stringContaining("Tried approach A") });
    await session.close();
  });

  it("forks the current branch into a new file that points to its parent", async () => {
    const { session, path, sessionsDir } = await newSession();
    const first = session.appendMessage(userMessage("one"));
    session.appendMessage(assistantMessage([{ type: "text", text: "A" }]));
    session.branch(first);
    const kept = session.appendMessage(assistantMessage([{ type: "text", text: "B" }]));
    const fork = await session.fork();
    expect(fork.path).not.toBe(path);
    expect(dirname(fork.path as string)).toBe(sessionDirFor(sessionsDir, "/work/project"));
    expect(fork.header.parentSession).toBe(path);
    expect(fork.getBranch().map((entry) => entry.id)).toEqual([first, kept]);
    fork.appendMessage(userMessage("forked on"));
    await fork.close();
    await session.close();
    const reopened = await SessionManager.open(fork.path as string, { readOnly: true });
    expect(reopened.getEntries()).toHaveLength(3);
    expect(reopened.header.parentSession).toBe(path);
  });

  it("keeps labels and the session name", async () => {
    const { session, path } = await newSession();
    const id = session.appendMessage(userMessage("one"));
    session.setLabel(id, "start");
    session.setName("my session");
    session.setName("renamed");
    await session.close();
    const reopened = await SessionManager.open(path);
    expect(reopened.getLabel(id)).toBe("start");
    expect(reopened.getName()).toBe("renamed");
    reopened.setLabel(id, undefined);
    expect(reopened.getLabel(id)).toBeUndefined();
    expect(reopened.getTree()[0]?.label).toBeUndefined();
    await reopened.close();
  });

  it("works in memory with the same API and writes nothing", async () => {
    const dir = await tempDir();
    const session = SessionManager.inMemory({ cwd: dir });
    const id = session.appendMessage(userMessage("hi"));
    session.setLabel(id, "x");
    const fork = await session.fork();
    expect(fork.path).toBeUndefined();
    expect(fork.getBranch()).toHaveLength(2);
    await session.close();
    expect(session.path).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a second writer with a message that suggests forking", async () => {
    const { session, path } = await newSession();
    session.appendMessage(userMessage("one"));
    await session.flush();
    const lock = JSON.parse(await readFile(lockPathFor(path), "utf8"));
    expect(lock).toMatchObject({ pid: process.pid, host: hostname() });
    await expect(SessionManager.open(path)).rejects.toThrow(/open in another gyre.*Fork it/);
    const reader = await SessionManager.open(path, { readOnly: true });
    expect(() => reader.appendMessage(userMessage("no"))).toThrow(/read-only/);
    await session.close();
    expect(await exists(lockPathFor(path))).toBe(false);
    const second = await SessionManager.open(path);
    await second.close();
  });

  it("reclaims a stale lock left by a dead process", async () => {
    const { session, path } = await newSession();
    session.appendMessage(userMessage("one"));
    await session.close();
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max default range, so never alive
    await writeFile(lockPathFor(path), JSON.stringify({ pid: deadPid, host: hostname(), timestamp: "2026-01-01" }));
    const reopened = await SessionManager.open(path);
    expect(JSON.parse(await readFile(lockPathFor(path), "utf8")).pid).toBe(process.pid);
    await reopened.close();
  });

  it("does not reclaim a lock from another host", async () => {
    const { session, path } = await newSession();
    session.appendMessage(userMessage("one"));
    await session.close();
    await writeFile(lockPathFor(path), JSON.stringify({ pid: 1, host: "elsewhere", timestamp: "2026-01-01" }));
    await expect(SessionManager.open(path)).rejects.toThrow(/process 1 on elsewhere/);
  });

  it("redacts API keys before they reach the file", async () => {
    const sessionsDir = await tempDir();
    const envKey = "custom-provider-secret-0123456789";
    const redact = createRedactor({ env: { MY_PROVIDER_API_KEY: envKey, HOME: "/home/user" } });
    const session = SessionManager.create({ sessionsDir, cwd: "/p", redact });
    const secrets = [
      "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
      "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123",
      "AIzaSyA1234567890abcdefghijklmnopqrstu",
      envKey,
    ];
    session.appendMessage(userMessage(`keys: ${secrets.join(" ")} and Authorization: Bearer abcdefghijklmnop1234`));
    session.appendMessage(assistantMessage([toolCall("c1", "bash", { command: `curl -H "x-api-key: ${envKey}"` })]));
    await session.close();
    const text = await readFile(session.path as string, "utf8");
    for (const secret of [...secrets, "abcdefghijklmnop1234"]) expect(text).not.toContain(secret);
    expect(text).toContain("Bearer [REDACTED]");
    expect(text).toContain("keys: [REDACTED] [REDACTED] [REDACTED] [REDACTED] and");
    const reopened = await SessionManager.open(session.path as string, { readOnly: true });
    expect(reopened.problems).toEqual([]);
    expect(reopened.getEntries()).toHaveLength(2);
  });

  it("lists the lock file next to the session only while it is open", async () => {
    const { session, path } = await newSession();
    session.appendMessage(userMessage("one"));
    await session.flush();
    expect((await readdir(dirname(path))).sort()).toEqual([path.split("/").pop(), `${path.split("/").pop()}.lock`]);
    await session.close();
    expect(await readdir(dirname(path))).toEqual([join(path).split("/").pop()]);
  });
});
