import { appendFile, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { tempDir, userMessage } from "../../../test/session/helpers.js";
import { createRedactor } from "./redact-secrets.js";
import { SessionManager } from "./session-manager.js";

const tree = "a".repeat(40);

describe("checkpoint entries", () => {
  it("survive a reopen, stay out of the model's context and keep their place in the tree", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/work/project", redact: createRedactor() });
    const userId = session.appendMessage(userMessage("edit it"));
    const checkpointId = session.appendCheckpoint({
      ref: tree,
      files: ["src/a.ts"],
      reason: "turn",
      workspace: "/work/project",
      skipped: [{ path: "big.bin", bytes: 300_000_000, reason: "file_too_large" }],
    });
    await session.close();
    const path = session.path as string;
    const line = (await readFile(path, "utf8")).trimEnd().split("\n")[2] as string;
    expect(line.startsWith(`{"type":"checkpoint","id":"${checkpointId}","parentId":"${userId}",`)).toBe(true);

    const reopened = await SessionManager.open(path);
    expect(reopened.getEntry(checkpointId)).toMatchObject({ type: "checkpoint", ref: tree, reason: "turn" });
    expect(reopened.leafId).toBe(checkpointId);
    expect(reopened.buildContext().messages.map((message) => message.role)).toEqual(["user"]);
    expect(reopened.problems).toEqual([]);
    await reopened.close();
  });

  it("reports a checkpoint line without a tree id and skips it", async () => {
    const sessionsDir = await tempDir();
    const session = SessionManager.create({ sessionsDir, cwd: "/work/project", redact: createRedactor() });
    const userId = session.appendMessage(userMessage("hi"));
    await session.close();
    const bad = { type: "checkpoint", id: "0badc0de", parentId: userId, timestamp: "2026-12-01T00:00:00.000Z" };
    await appendFile(
      session.path as string,
      `${JSON.stringify({ ...bad, ref: "HEAD", files: [], reason: "turn", workspace: "/w" })}\n`,
    );
    const reopened = await SessionManager.open(session.path as string, { readOnly: true });
    expect(reopened.problems.map((problem) => problem.message)).toEqual([
      "entry 0badc0de: checkpoint needs a tree id in ref; skipped",
    ]);
    expect(reopened.getEntry("0badc0de")).toBeUndefined();
  });
});
