import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SdkSessionChoice } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";
import { startFauxSession } from "./faux-session.js";

const text = (value: string): FauxResponse => ({ content: [{ type: "text", text: value }] });

let dirs: TempDirs;
let log: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  log = join(dirs.cwd, "lifecycle.jsonl");
  // Real scripts: each records its stdin JSON as a line; SessionStart answers with context naming its source.
  await mkdir(join(dirs.cwd, ".hooks"));
  await writeFile(
    join(dirs.cwd, ".hooks", "start.sh"),
    `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> "${log}"\necho "context from SessionStart $(printf '%s' "$input" | jq -r .source)"\n`,
  );
  await writeFile(join(dirs.cwd, ".hooks", "end.sh"), `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> "${log}"\n`);
  const hook = (name: string) => [{ hooks: [{ type: "command", command: `sh "$CLAUDE_PROJECT_DIR/.hooks/${name}"` }] }];
  await writeFile(
    join(dirs.home, "settings.json"),
    JSON.stringify({
      hooks: { SessionStart: hook("start.sh"), SessionEnd: hook("end.sh") },
      compaction: { keepRecentTokens: 1 },
    }),
  );
});
afterEach(async () => {
  await dirs.remove();
});

type Recorded = {
  hook_event_name: string;
  session_id: string;
  transcript_path: string;
  source?: string;
  reason?: string;
};

async function recorded(): Promise<Recorded[]> {
  const lines = (await readFile(log, "utf8").catch(() => "")).trim().split("\n");
  return lines.filter(Boolean).map((line) => JSON.parse(line) as Recorded);
}

/** Event and its `source`/`reason`, in the order the hooks ran. */
const steps = (records: Recorded[]) => records.map((r) => `${r.hook_event_name}:${r.source ?? r.reason}`);

/** Start-up, then /new: the old session ends with `clear` before the new one starts. */
const THEN_NEW = ["SessionStart:startup", "SessionEnd:clear", "SessionStart:clear"];

const start = (responses: FauxResponse[], session: SdkSessionChoice = "new") =>
  startFauxSession(dirs, responses, { session });

describe("SessionStart and SessionEnd through a session's life", () => {
  it("fires clear on /new, SessionEnd for the old session first, and the new context reaches the next turn", async () => {
    const { faux, session, dispose } = await start([text("one"), text("two")]);
    await session.prompt("first");
    const first = session.state;
    await session.newSession();
    const second = session.state;
    await session.prompt("second");
    await dispose();
    const records = await recorded();
    expect(steps(records)).toEqual([...THEN_NEW, "SessionEnd:other"]);
    expect(records[1]).toMatchObject({ session_id: first.sessionId, transcript_path: first.sessionFile });
    expect(records[2]).toMatchObject({ session_id: second.sessionId, transcript_path: second.sessionFile });
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(faux.contexts[0]?.systemPrompt).toContain("context from SessionStart startup");
    // The new session's context replaces the old one's.
    expect(faux.contexts[1]?.systemPrompt).toContain("context from SessionStart clear");
    expect(faux.contexts[1]?.systemPrompt).not.toContain("context from SessionStart startup");
  });

  it("fires resume when another session is opened, and at start-up for a continued one", async () => {
    const { session, dispose } = await start([text("one"), text("two"), text("three")]);
    await session.prompt("in the first session");
    const first = session.state;
    await session.newSession();
    await session.prompt("in the second session");
    const second = session.state;
    await session.open(first.sessionFile ?? "");
    await dispose();
    const records = await recorded();
    expect(steps(records)).toEqual([...THEN_NEW, "SessionEnd:other", "SessionStart:resume", "SessionEnd:other"]);
    expect(records[3]).toMatchObject({ session_id: second.sessionId });
    expect(records[4]).toMatchObject({ session_id: first.sessionId, transcript_path: first.sessionFile });

    const again = await start([text("continued")], { continue: true });
    await again.session.prompt("go on");
    await again.dispose();
    const later = (await recorded()).slice(records.length);
    expect(steps(later)).toEqual(["SessionStart:resume", "SessionEnd:other"]);
    expect(again.faux.contexts[0]?.systemPrompt).toContain("context from SessionStart resume");
  });

  it("fires compact after a compaction, and its context is in the next model call", async () => {
    const { faux, session, dispose } = await start([
      text(`first answer ${"a".repeat(400)}`),
      text(`second answer ${"b".repeat(400)}`),
      text("Summary of the work so far."),
      text("after compaction"),
    ]);
    await session.prompt(`first ${"x".repeat(400)}`);
    await session.prompt(`second ${"y".repeat(400)}`);
    expect(await session.compact()).toBe(true);
    await session.prompt("third");
    await dispose();
    expect(steps(await recorded())).toEqual(["SessionStart:startup", "SessionStart:compact", "SessionEnd:other"]);
    const last = faux.contexts.at(-1);
    expect(last?.systemPrompt).toContain("context from SessionStart compact");
    expect(JSON.stringify(last?.messages)).toContain("Summary of the work so far.");
  });

  it("fires nothing when moving inside one session", async () => {
    const { session, dispose } = await start([text("one"), text("two")]);
    await session.prompt("first question");
    await session.prompt("second question");
    const tree = session.tree();
    await session.navigate([...tree.activePath][1] ?? "");
    await dispose();
    expect(steps(await recorded())).toEqual(["SessionStart:startup", "SessionEnd:other"]);
  });
});
