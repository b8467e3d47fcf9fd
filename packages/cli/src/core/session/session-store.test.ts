import { stat, utimes } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { assistantMessage, tempDir, userMessage } from "../../../test/session/helpers.js";
import { SessionManager } from "./session-manager.js";
import { cwdSlug } from "./session-paths.js";
import { findNewestSession, listSessions, resolveSessionArgument, SUBAGENT_SESSION_MODE } from "./session-store.js";

async function makeSession(sessionsDir: string, cwd: string, text: string, mtime: number) {
  const session = SessionManager.create({ sessionsDir, cwd });
  session.appendMessage(userMessage(text));
  await session.close();
  const path = session.path as string;
  await utimes(path, mtime, mtime);
  return { path, id: session.id };
}

describe("finding sessions", () => {
  it("summarises message count, the last model, size and the mode the header records", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/p", mode: "print" });
    session.appendModelChange("openai", "gpt-4o");
    session.appendMessage(userMessage("one"));
    session.appendMessage(userMessage("two"));
    await session.close();
    const [summary] = await listSessions({ sessionsDir, cwd: "/p" });
    const { size } = await stat(session.path as string);
    expect(summary).toMatchObject({ messageCount: 2, model: "openai/gpt-4o", size, mode: "print" });
  });

  it("lists a session under the model it was switched to after its last answer, as a resume picks it (the /resume picker)", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/p" });
    const answer = (model: string) => ({ ...assistantMessage([{ type: "text", text: "hi" }]), provider: "lab", model });
    session.appendModelChange("lab", "fake-model");
    session.appendMessage(userMessage("one"));
    session.appendMessage(answer("fake-model"));
    session.appendModelChange("lab", "fake-mini");
    await session.flush();
    expect((await listSessions({ sessionsDir, cwd: "/p" }))[0]?.model).toBe("lab/fake-mini");
    session.appendMessage(userMessage("two"));
    session.appendMessage(answer("fake-mini"));
    await session.close();
    expect((await listSessions({ sessionsDir, cwd: "/p" }))[0]?.model).toBe("lab/fake-mini");
  });

  it("makes distinct, readable folder names for working directories", () => {
    expect(cwdSlug("/home/me/project")).toMatch(/^home-me-project-[0-9a-f]{8}$/);
    expect(cwdSlug("/a/b-c")).not.toBe(cwdSlug("/a-b/c"));
  });

  it("finds the newest session of a cwd and lists sessions newest first", async () => {
    const sessionsDir = await tempDir();
    const old = await makeSession(sessionsDir, "/p", "first task", 1_000);
    const recent = await makeSession(sessionsDir, "/p", "second   task\nwith lines", 2_000);
    const other = await makeSession(sessionsDir, "/q", "elsewhere", 3_000);
    expect(await findNewestSession({ sessionsDir, cwd: "/p" })).toBe(recent.path);
    expect(await findNewestSession({ sessionsDir, cwd: "/nowhere" })).toBeUndefined();
    const listed = await listSessions({ sessionsDir, cwd: "/p" });
    expect(listed.map((s) => [s.path, s.firstMessage])).toEqual([
      [recent.path, "second task with lines"],
      [old.path, "first task"],
    ]);
    expect(listed[0]?.created).toBeInstanceOf(Date);
    const all = await listSessions({ sessionsDir });
    expect(all.map((s) => s.id)).toEqual([other.id, recent.id, old.id]);
  });

  it("passes over a newer subagent journal when finding the newest session of a cwd", async () => {
    const sessionsDir = await tempDir();
    const parent = await makeSession(sessionsDir, "/p", "the task", 1_000);
    const child = SessionManager.create({
      sessionsDir,
      cwd: "/p",
      mode: SUBAGENT_SESSION_MODE,
      parentSession: parent.path,
    });
    child.appendMessage(userMessage("the subtask"));
    await child.close();
    expect(await findNewestSession({ sessionsDir, cwd: "/p" })).toBe(parent.path);
  });

  it("lists a session's name", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/p" });
    session.appendMessage(userMessage("hi"));
    session.setName("old name");
    session.setName("new name");
    await session.close();
    expect((await listSessions({ sessionsDir, cwd: "/p" }))[0]?.name).toBe("new name");
  });

  it("resolves a path or an id prefix, and explains misses and ambiguity", async () => {
    const sessionsDir = await tempDir();
    const one = await makeSession(sessionsDir, "/p", "a", 1_000);
    await makeSession(sessionsDir, "/q", "b", 1_000);
    expect(await resolveSessionArgument({ sessionsDir, cwd: "/p", value: one.id.slice(0, 8) })).toBe(one.path);
    expect(await resolveSessionArgument({ sessionsDir, cwd: "/", value: one.path })).toBe(one.path);
    await expect(resolveSessionArgument({ sessionsDir, cwd: "/p", value: "zzzz" })).rejects.toThrow(
      /No session id starts with "zzzz"/,
    );
    await expect(resolveSessionArgument({ sessionsDir, cwd: "/p", value: "" })).rejects.toThrow(/Give a session/);
    await expect(resolveSessionArgument({ sessionsDir, cwd: "/p", value: "./none.jsonl" })).rejects.toThrow(
      /No session file at \/p\/none.jsonl/,
    );
  });
});
