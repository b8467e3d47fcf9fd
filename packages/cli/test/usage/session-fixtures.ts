/**
 * Session files for the usage tests, written as gyre writes them (tree fields first, one JSON
 * object a line) into a real sessions folder: answers with usage, task results that link a
 * subagent's journal, compactions.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Usage } from "@gyre/ai";

export function usageOf(input: number, output: number, cacheRead: number, cacheWrite: number, cost: number): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

export type FixtureCall = { at: number; model: string; usage: Usage };

export type FixtureSession = {
  sessionsDir: string;
  cwd: string;
  calls: FixtureCall[];
  /** A subagent journal: mode "subagent", named "<agent> for <call id>". */
  subagent?: { agent: string; parentSession: string };
  /** Task results linking subagent journals. */
  tasks?: { toolCallId: string; sessionFile?: string; usage?: Usage; agent?: string; at: number }[];
  compaction?: { at: number; usage: Usage };
  /** Appends a torn last line, as a crash leaves it. */
  torn?: boolean;
  /** Appends an unparseable line in the middle. */
  damaged?: boolean;
  parentSession?: string;
  id?: string;
};

let counter = 0;
const entryId = () => (++counter).toString(16).padStart(8, "0");

function entry(type: string, at: number, rest: Record<string, unknown>): string {
  return JSON.stringify({ type, id: entryId(), parentId: null, timestamp: new Date(at).toISOString(), ...rest });
}

/** Writes the session file and returns its path. */
export async function writeSession(session: FixtureSession): Promise<string> {
  const id = session.id ?? randomUUID();
  const first = session.calls[0]?.at ?? session.tasks?.[0]?.at ?? Date.now();
  const dir = join(session.sessionsDir, session.cwd.replace(/[^A-Za-z0-9]+/g, "-"));
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${new Date(first).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`);
  const header: Record<string, unknown> = {
    type: "session",
    version: 1,
    id,
    timestamp: new Date(first).toISOString(),
    cwd: session.cwd,
  };
  const parent = session.subagent?.parentSession ?? session.parentSession;
  if (parent !== undefined) header.parentSession = parent;
  if (session.subagent) header.mode = "subagent";
  const lines = [JSON.stringify(header)];
  if (session.subagent) lines.push(entry("session_info", first, { name: `${session.subagent.agent} for call_1` }));
  for (const call of session.calls) {
    lines.push(entry("message", call.at - 1, { message: { role: "user", content: "hi", timestamp: call.at - 1 } }));
    const [provider, model] = call.model.split("/");
    lines.push(
      entry("message", call.at, {
        message: {
          role: "assistant",
          content: [{ type: "text", text: "ok" }],
          api: "x",
          provider,
          model,
          usage: call.usage,
          stopReason: "stop",
          timestamp: call.at,
        },
      }),
    );
    if (session.damaged && lines.length === 3) lines.push('{"type":"message","id":"zz", "usage": broken');
  }
  for (const task of session.tasks ?? [])
    lines.push(
      entry("message", task.at, {
        message: {
          role: "toolResult",
          toolCallId: task.toolCallId,
          toolName: "task",
          content: [{ type: "text", text: "done" }],
          details: {
            agent: task.agent ?? "explore",
            usage: task.usage,
            ...(task.sessionFile ? { sessionFile: task.sessionFile } : {}),
          },
          isError: false,
          timestamp: task.at,
        },
      }),
    );
  if (session.compaction)
    lines.push(
      entry("compaction", session.compaction.at, {
        summary: "s",
        firstKeptEntryId: "00000001",
        tokensBefore: 10,
        usage: session.compaction.usage,
      }),
    );
  let text = `${lines.join("\n")}\n`;
  if (session.torn)
    text +=
      '{"type":"message","id":"0000ffff","parentId":null,"timestamp":"x","message":{"role":"assistant","usage":{"input":5';
  await writeFile(path, text);
  return path;
}
