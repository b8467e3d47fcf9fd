import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lockPathFor } from "../../src/core/session/session-lock.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { bundleChild, killHard, type RunningChild, startChild } from "./child-process.js";
import { tempDir, userMessage } from "./helpers.js";

let bundleDir = "";
let bundle = "";
const running: RunningChild[] = [];

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), "gyre-session-bundle-"));
  bundle = await bundleChild(bundleDir);
});

afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((entry) => killHard(entry.child)));
});

function run(args: string[]): RunningChild {
  const child = startChild(bundle, args);
  running.push(child);
  return child;
}

describe("a session writer killed with SIGKILL", () => {
  it("loses at most the entry being written; the file resumes, is repaired and takes new entries", async () => {
    const sessionsDir = await tempDir();
    const writer = run(["append", sessionsDir, "/project"]);
    const line = await writer.waitForLine(/^flushed (1[0-9]{2}|[2-9][0-9]{2}) /);
    await killHard(writer.child);
    const [, flushedText, path] = line.split(" ") as [string, string, string];
    const flushed = Number(flushedText);

    const session = await SessionManager.open(path);
    const problems = [...session.problems];
    expect(problems.length).toBeLessThanOrEqual(1);
    if (problems.length === 1) expect(problems[0]?.message).toMatch(/last line is incomplete/);
    const texts = session.getBranch().map((entry) => (entry.type === "message" ? String(entry.message.content) : ""));
    expect(texts.length).toBeGreaterThanOrEqual(flushed);
    texts.forEach((text, index) => {
      expect(text.startsWith(`entry ${index} `)).toBe(true);
    });
    const lastBefore = session.leafId;
    const added = session.appendMessage(userMessage("after the crash"));
    await session.close();

    const text = await readFile(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const reopened = await SessionManager.open(path, { readOnly: true });
    expect(reopened.leafId).toBe(added);
    expect(reopened.getEntry(added)?.parentId).toBe(lastBefore);
    expect(reopened.getBranch()).toHaveLength(texts.length + 1);
    expect(reopened.problems.map((problem) => problem.line)).toEqual(problems.map((problem) => problem.line));
  });
});

describe("two processes on one session", () => {
  it("refuses the second writer while the first lives, and reclaims the lock once it is killed", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/project" });
    session.appendMessage(userMessage("hello"));
    await session.close();
    const path = session.path as string;

    const holder = run(["hold", path]);
    await holder.waitForLine(/^locked$/);
    const lock = JSON.parse(await readFile(lockPathFor(path), "utf8"));
    expect(lock.pid).toBe(holder.child.pid);
    await expect(SessionManager.open(path)).rejects.toThrow(
      new RegExp(`open in another gyre \\(process ${holder.child.pid}.*Fork it to continue separately`),
    );
    const reader = await SessionManager.open(path, { readOnly: true });
    const fork = await reader.fork();
    fork.appendMessage(userMessage("in the fork"));
    await fork.close();
    expect(fork.header.parentSession).toBe(path);

    await killHard(holder.child);
    const reclaimed = await SessionManager.open(path);
    expect(JSON.parse(await readFile(lockPathFor(path), "utf8")).pid).toBe(process.pid);
    await reclaimed.close();
  });
});
