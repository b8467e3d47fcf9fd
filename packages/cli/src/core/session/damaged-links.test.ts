import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, tempDir, userMessage } from "../../../test/session/helpers.js";
import { SessionManager } from "./session-manager.js";

/** A closed three-prompt session on disk; returns its path and its lines. */
async function threePrompts(): Promise<{ path: string; lines: string[]; dir: string }> {
  const dir = await tempDir();
  const session = SessionManager.create({ sessionsDir: dir, cwd: "/work/project" });
  for (const word of ["one", "two", "three"]) {
    session.appendMessage(userMessage(word === "one" ? "remember the code word PELICAN" : `prompt ${word}`));
    session.appendMessage(assistantMessage([{ type: "text", text: `answer ${word}` }]));
  }
  await session.close();
  const path = session.path as string;
  return { path, dir, lines: (await readFile(path, "utf8")).trimEnd().split("\n") };
}

function texts(session: SessionManager): string[] {
  return session.buildContext().messages.map((message) => JSON.stringify(message.content));
}

async function rewrite(path: string, lines: string[]): Promise<void> {
  await writeFile(path, `${lines.join("\n")}\n`);
}

describe("a session with a lost line in the middle", () => {
  it("keeps every entry before a line overwritten with NUL bytes and names the gap", async () => {
    const { path, lines } = await threePrompts();
    lines[3] = "\0".repeat((lines[3] as string).length); // the second user message
    await rewrite(path, lines);
    const session = await SessionManager.open(path);
    const context = texts(session);
    expect(context.join(" ")).toContain("PELICAN");
    expect(context).toHaveLength(5);
    expect(session.problems.map((problem) => problem.message).join("\n")).toMatch(
      /parent entry [0-9a-f]{8} is missing.*continued from the entry before it/,
    );
    // New entries continue the whole branch: the next reader sees the first prompt too.
    session.appendMessage(userMessage("what was the code word?"));
    await session.close();
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(texts(reopened).join(" ")).toContain("PELICAN");
  });

  it("keeps every entry before a line replaced by garbage", async () => {
    const { path, lines } = await threePrompts();
    lines[4] = `{"type":"message","id":"${"x".repeat(40)}  garbage`;
    await rewrite(path, lines);
    const session = await SessionManager.open(path, { readOnly: true });
    expect(texts(session).join(" ")).toContain("PELICAN");
    expect(session.problems.length).toBeGreaterThanOrEqual(2);
  });
});

describe("damaged parent links", () => {
  it("breaks a parentId cycle: each message is sent once and the cycle is reported", async () => {
    const { path, lines } = await threePrompts();
    const first = JSON.parse(lines[1] as string) as { parentId: string | null };
    const last = JSON.parse(lines[6] as string) as { id: string };
    first.parentId = last.id; // the root now points at the leaf
    lines[1] = JSON.stringify(first);
    await rewrite(path, lines);
    const session = await SessionManager.open(path, { readOnly: true });
    const context = texts(session);
    expect(context).toHaveLength(6);
    expect(new Set(context).size).toBe(6);
    expect(session.problems.map((problem) => problem.message).join("\n")).toMatch(/makes a cycle/);
    const nodes = session.getTree();
    expect(nodes).toHaveLength(1);
  });

  it("breaks a self-parent without dropping the entries before it", async () => {
    const { path, lines } = await threePrompts();
    const third = JSON.parse(lines[3] as string) as { id: string; parentId: string | null };
    third.parentId = third.id;
    lines[3] = JSON.stringify(third);
    await rewrite(path, lines);
    const session = await SessionManager.open(path, { readOnly: true });
    const context = texts(session);
    expect(context).toHaveLength(6);
    expect(context.join(" ")).toContain("PELICAN");
    expect(session.problems).toEqual([{ line: 4, message: expect.stringMatching(/points to the entry itself/) }]);
  });
});

describe("a session whose header cannot be used", () => {
  it("reads the entries under a garbage header, opens read-only, and forks them whole", async () => {
    const { path, lines, dir } = await threePrompts();
    lines[0] = "\0\0\0 not a header";
    await rewrite(path, lines);
    const before = await readFile(path, "utf8");
    const session = await SessionManager.open(path);
    expect(session.headerProblem).toMatch(/not a session header/);
    expect(texts(session)).toHaveLength(6);
    expect(() => session.appendMessage(userMessage("x"))).toThrow(/read-only/);
    const forked = await session.fork({ sessionsDir: dir, cwd: "/work/project" });
    forked.appendMessage(userMessage("next"));
    await forked.close();
    expect(await readFile(path, "utf8")).toBe(before);
    const reopened = await SessionManager.open(forked.path as string, { readOnly: true });
    expect(reopened.problems).toEqual([]);
    expect(texts(reopened).join(" ")).toContain("PELICAN");
  });

  it("reads the valid entries of a newer format version and says why it is read-only", async () => {
    const { path, lines } = await threePrompts();
    const header = JSON.parse(lines[0] as string) as { version: number };
    header.version = 99;
    lines[0] = JSON.stringify(header);
    lines.splice(2, 0, '{"type":"hologram","id":"b0000001","parentId":null,"timestamp":"2030-01-01T00:00:00Z"}');
    await rewrite(path, lines);
    const session = await SessionManager.open(path);
    expect(session.headerProblem).toMatch(/format version 99.*update gyre/);
    expect(texts(session)).toHaveLength(6);
  });
});

describe("forking from an earlier entry", () => {
  it("keeps the labels of the entries it keeps and drops the others", async () => {
    const dir = await tempDir();
    const session = SessionManager.create({ sessionsDir: dir, cwd: "/work/project" });
    const first = session.appendMessage(userMessage("one"));
    const answer = session.appendMessage(assistantMessage([{ type: "text", text: "a" }]));
    const later = session.appendMessage(userMessage("two"));
    session.setLabel(first, "start");
    session.setLabel(answer, "good answer");
    session.setLabel(later, "after the fork point");
    session.branch(answer);
    const forked = await session.fork({ sessionsDir: join(dir, "forks") });
    await forked.close();
    await session.close();
    const reopened = await SessionManager.open(forked.path as string, { readOnly: true });
    expect(reopened.getLabel(first)).toBe("start");
    expect(reopened.getLabel(answer)).toBe("good answer");
    expect(reopened.getLabel(later)).toBeUndefined();
    expect(reopened.buildContext().messages).toHaveLength(2);
  });
});
