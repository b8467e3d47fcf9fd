/**
 * The model calls one session file records, read as a stream so a large file costs one chunk of
 * memory. Only the lines that can carry usage are parsed (the header, the name, answers, task
 * results and compactions); a line that cannot be read is counted and skipped, never fatal.
 */
import { createReadStream } from "node:fs";
import type { Usage } from "@gyre/ai";
import { SUBAGENT_SESSION_MODE } from "../session/session-store.js";
import type { UsageCall } from "./usage-report.js";

/** What a session file says about itself, and the calls in it. */
export type SessionUsageFile = {
  sessionId: string;
  project: string;
  /** "main", or the subagent's name for a subagent's journal. */
  agent: string;
  isSubagent: boolean;
  /** The session this one was forked from or started by. */
  parentSession?: string;
  /** Each with the key that names it across files (a fork's copy of an answer has the original's). */
  calls: (UsageCall & { key: string })[];
  /** Subagent journals the file's task results link to. */
  subagentFiles: string[];
  unreadableLines: number;
};

export type ReadUsageOptions = {
  /** Calls before this time (ms) are left out. */
  sinceMs?: number;
  /**
   * Keys of calls already counted: a forked session copies its parent's entries, so the same
   * answer is in two files and must count once. Shared across the files of one report.
   */
  seen?: Set<string>;
};

type Line = Record<string, unknown>;

/** Reads the calls of the session file at `path`. Rejects only when the file cannot be opened or read. */
export async function readSessionUsage(path: string, options: ReadUsageOptions = {}): Promise<SessionUsageFile> {
  const file: SessionUsageFile = {
    sessionId: "",
    project: "",
    agent: "main",
    isSubagent: false,
    calls: [],
    subagentFiles: [],
    unreadableLines: 0,
  };
  // Bytes, not text: most lines (tool output, user text) are skipped after a prefix test and one
  // native search, and only the few that can carry usage are decoded and parsed.
  let rest: Buffer = Buffer.alloc(0);
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      readLine(bytes.subarray(start, end), file, options);
      start = end + 1;
    }
    rest = Buffer.from(bytes.subarray(start));
  }
  // A torn last line (a crash mid-write) is not a call yet: only a complete one counts.
  if (rest.length > 0) readLine(rest, file, options, true);
  return file;
}

const NEWLINE = 0x0a;
const messagePrefix = Buffer.from('{"type":"message"');
const otherPrefixes = ['{"type":"session"', '{"type":"session_info"', '{"type":"compaction"'].map((text) =>
  Buffer.from(text),
);
const usageKey = Buffer.from('"usage":');

function startsWith(line: Buffer, prefix: Buffer): boolean {
  return line.length >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

function mayCarryUsage(line: Buffer): boolean {
  if (startsWith(line, messagePrefix)) return line.includes(usageKey);
  return otherPrefixes.some((prefix) => startsWith(line, prefix));
}

function readLine(line: Buffer, file: SessionUsageFile, options: ReadUsageOptions, last = false): void {
  if (!mayCarryUsage(line)) return;
  let value: Line;
  try {
    value = JSON.parse(line.toString("utf8")) as Line;
  } catch {
    if (!last) file.unreadableLines += 1;
    return;
  }
  switch (value.type) {
    case "session":
      readHeader(value, file);
      return;
    case "session_info":
      if (file.isSubagent && typeof value.name === "string") file.agent = subagentName(value.name);
      return;
    case "compaction":
      addCall(
        file,
        options,
        { usage: value.usage, timestamp: Date.parse(String(value.timestamp)), model: "compaction" },
        `c:${String(value.id)}:${String(value.timestamp)}`,
      );
      return;
    case "message":
      readMessage(value.message as Line | undefined, file, options);
      return;
    default:
      return;
  }
}

function readHeader(value: Line, file: SessionUsageFile): void {
  file.sessionId = String(value.id ?? "");
  file.project = String(value.cwd ?? "");
  file.isSubagent = value.mode === SUBAGENT_SESSION_MODE;
  if (file.isSubagent) file.agent = "subagent";
  if (typeof value.parentSession === "string") file.parentSession = value.parentSession;
}

/** A subagent journal is named "<agent> for <task call id>" (core/create-harness-tools.ts). */
function subagentName(name: string): string {
  const at = name.lastIndexOf(" for ");
  return at > 0 ? name.slice(0, at) : name;
}

function readMessage(message: Line | undefined, file: SessionUsageFile, options: ReadUsageOptions): void {
  if (!message) return;
  if (message.role === "assistant") {
    const model = `${String(message.provider)}/${String(message.model)}`;
    const usage = message.usage as Partial<Usage> | undefined;
    const key = `a:${String(message.timestamp)}:${model}:${String(message.responseId ?? "")}:${usage?.input}:${usage?.output}`;
    addCall(file, options, { usage: message.usage, timestamp: Number(message.timestamp), model }, key);
    return;
  }
  if (message.role !== "toolResult" || message.toolName !== "task") return;
  const details = message.details as Line | undefined;
  // A subagent with a journal has its calls there; one without (no sessions folder) only here.
  if (typeof details?.sessionFile === "string") file.subagentFiles.push(details.sessionFile);
  else
    addCall(
      file,
      options,
      {
        usage: details?.usage,
        timestamp: Number(message.timestamp),
        model: "subagents",
        agent: String(details?.agent ?? "subagent"),
      },
      `t:${String(message.toolCallId)}:${String(message.timestamp)}`,
    );
}

function addCall(
  file: SessionUsageFile,
  options: ReadUsageOptions,
  call: { usage: unknown; timestamp: number; model: string; agent?: string },
  key: string,
): void {
  if (!isUsage(call.usage) || !Number.isFinite(call.timestamp)) return;
  if (options.sinceMs !== undefined && call.timestamp < options.sinceMs) return;
  if (options.seen) {
    if (options.seen.has(key)) return;
    options.seen.add(key);
  }
  file.calls.push({
    timestamp: call.timestamp,
    model: call.model,
    project: file.project,
    agent: call.agent ?? file.agent,
    sessionId: file.sessionId,
    usage: call.usage,
    key,
  });
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== "object" || value === null) return false;
  const usage = value as Record<string, unknown>;
  return (
    typeof usage.input === "number" &&
    typeof usage.output === "number" &&
    typeof usage.cacheRead === "number" &&
    typeof usage.cacheWrite === "number" &&
    typeof usage.totalTokens === "number" &&
    typeof (usage.cost as { total?: unknown } | undefined)?.total === "number"
  );
}
