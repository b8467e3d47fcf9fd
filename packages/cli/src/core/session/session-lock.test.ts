import { readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/session/helpers.js";
import { acquireSessionLock, lockPathFor, reclaimLeftLock } from "./session-lock.js";

async function lockedSession(owner: Record<string, unknown>) {
  const session = join(await tempDir(), "s.jsonl");
  await writeFile(session, "");
  await writeFile(lockPathFor(session), `${JSON.stringify(owner)}\n`);
  return session;
}

const gone = async (path: string) =>
  stat(path).then(
    () => false,
    () => true,
  );

describe("reclaimLeftLock (the library side of gyre doctor --fix)", () => {
  it("reclaims another host's lock older than the bound, and the session can be locked again", async () => {
    const session = await lockedSession({ pid: 1, host: "other-host", timestamp: "2020-01-01T00:00:00.000Z" });
    await expect(acquireSessionLock(session)).rejects.toThrow(/is open in another gyre \(process 1 on other-host/);
    // Opening says how to get out: the doctor command, since this host cannot check that pid.
    await expect(acquireSessionLock(session)).rejects.toThrow(
      `If no gyre runs on other-host any more, run gyre doctor ${session} --fix (it removes another host's lock older than 24 h)`,
    );
    expect(await reclaimLeftLock(session, { now: Date.parse("2020-01-11T00:00:00.000Z") })).toEqual({
      kind: "reclaimed",
      holder: { pid: 1, host: "other-host", timestamp: "2020-01-01T00:00:00.000Z" },
      reason:
        "process 1 on other-host took it 10 days ago, more than 24 h: a lock of another host that old was left behind",
    });
    expect(await gone(lockPathFor(session))).toBe(true);
    const lock = await acquireSessionLock(session);
    expect(JSON.parse(await readFile(lockPathFor(session), "utf8"))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it("keeps a recent foreign lock and a live local one, saying why", async () => {
    const recent = new Date(Date.now() - 5 * 60_000).toISOString();
    const foreign = await lockedSession({ pid: 1, host: "other-host", timestamp: recent });
    expect(await reclaimLeftLock(foreign)).toMatchObject({
      kind: "kept",
      reason: "process 1 on other-host took it 5 min ago, less than 24 h; that gyre may still run",
    });
    const live = await lockedSession({ pid: process.ppid, host: hostname(), timestamp: recent });
    expect(await reclaimLeftLock(live)).toMatchObject({
      kind: "kept",
      reason: `process ${process.ppid} on this host is running`,
    });
    expect(await gone(lockPathFor(foreign))).toBe(false);
    expect(await gone(lockPathFor(live))).toBe(false);
    expect(await reclaimLeftLock(foreign, { olderThanMs: 60_000 })).toMatchObject({ kind: "reclaimed" });
  });

  it("says there is nothing to do when there is no lock", async () => {
    const session = join(await tempDir(), "none.jsonl");
    expect(await reclaimLeftLock(session)).toEqual({ kind: "none" });
  });
});
