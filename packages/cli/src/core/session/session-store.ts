/**
 * Finding sessions on disk: the newest of a working directory (`--continue`), all of them newest
 * first (`--resume`), and one by path or id prefix (`--session`). Only reads; never locks.
 */
import { open, readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { CliError } from "../errors.js";
import { parseSessionEntryLine, parseSessionHeader } from "./parse-entry.js";
import { sessionDirFor, sessionIdFromFileName } from "./session-paths.js";
import type { SessionSummary } from "./types.js";

const NEWLINE = 0x0a;
const FIRST_MESSAGE_CHARS = 200;

type SessionFileRef = { path: string; id: string; modified: Date };

async function listDirectory(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return []; // a missing folder just means no sessions yet
  }
}

async function sessionFilesIn(dir: string): Promise<SessionFileRef[]> {
  const refs: SessionFileRef[] = [];
  for (const name of await listDirectory(dir)) {
    const id = sessionIdFromFileName(name);
    if (id === undefined) continue;
    const path = join(dir, name);
    try {
      refs.push({ path, id, modified: (await stat(path)).mtime });
    } catch {
      // removed while listing
    }
  }
  return refs;
}

async function allSessionFiles(sessionsDir: string): Promise<SessionFileRef[]> {
  const groups = await Promise.all(
    (await listDirectory(sessionsDir)).map((name) => sessionFilesIn(join(sessionsDir, name))),
  );
  return groups.flat();
}

/**
 * Path of the most recently written session of `cwd` that can be opened, or undefined when it has
 * none. A file whose header cannot be read (empty, or torn by a crash while it was being created)
 * is passed over, and `onSkip` told why, so one such file never hides the older sessions. So is
 * a session of a newer format version (this gyre cannot continue it in place).
 */
export async function findNewestSession(options: {
  sessionsDir: string;
  cwd: string;
  onSkip?: (path: string, reason: string) => void;
}): Promise<string | undefined> {
  const refs = await sessionFilesIn(sessionDirFor(options.sessionsDir, options.cwd));
  refs.sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.path.localeCompare(a.path));
  for (const ref of refs) {
    const header = await readHeader(ref.path);
    if (header.ok && header.mode === SUBAGENT_SESSION_MODE) continue; // a part of its parent's run
    if (header.ok) return ref.path;
    options.onSkip?.(ref.path, header.error);
  }
  return undefined;
}

/** The header `mode` of a subagent's journal: never the session `--continue` picks. */
export const SUBAGENT_SESSION_MODE = "subagent";

const HEADER_BYTES = 64 * 1024;

/**
 * The header of `path`: ok with its mode, or why it cannot be read. A file that cannot be opened
 * counts as ok (opening it later reports the error better).
 */
async function readHeader(path: string): Promise<{ ok: true; mode?: string } | { ok: false; error: string }> {
  let text: string;
  try {
    const handle = await open(path, "r");
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
      const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
      text = buffer.toString("utf8", 0, end < 0 ? bytesRead : end);
    } finally {
      await handle.close();
    }
  } catch {
    return { ok: true };
  }
  if (text.trim() === "") return { ok: false, error: "the file is empty" };
  const header = parseSessionHeader(text);
  if (!header.ok) return header;
  return header.value.mode === undefined ? { ok: true } : { ok: true, mode: header.value.mode };
}

/**
 * Sessions newest first (by last write), of `cwd` only or of every directory. Files that are not
 * readable sessions are left out. Each file is read once, sequentially.
 */
export async function listSessions(options: { sessionsDir: string; cwd?: string }): Promise<SessionSummary[]> {
  const refs =
    options.cwd === undefined
      ? await allSessionFiles(options.sessionsDir)
      : await sessionFilesIn(sessionDirFor(options.sessionsDir, options.cwd));
  const summaries: SessionSummary[] = [];
  for (const ref of refs) {
    const summary = await summariseSession(ref);
    if (summary) summaries.push(summary);
  }
  return summaries.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

async function summariseSession(ref: SessionFileRef): Promise<SessionSummary | undefined> {
  let buffer: Buffer;
  try {
    buffer = await readFile(ref.path);
  } catch {
    return undefined;
  }
  const headerEnd = buffer.indexOf(NEWLINE);
  const header = parseSessionHeader(buffer.toString("utf8", 0, headerEnd < 0 ? buffer.length : headerEnd));
  if (!header.ok) return undefined;
  const summary: SessionSummary = {
    path: ref.path,
    id: header.value.id,
    cwd: header.value.cwd,
    created: new Date(header.value.timestamp),
    modified: ref.modified,
    firstMessage: findFirstUserText(buffer),
    messageCount: countOccurrences(buffer, '{"type":"message"'),
    size: buffer.length,
  };
  const model = findLastModel(buffer);
  if (model !== undefined) summary.model = model;
  if (header.value.mode !== undefined) summary.mode = header.value.mode;
  const name = findLastName(buffer);
  if (name !== undefined) summary.name = name;
  if (header.value.parentSession !== undefined) summary.parentSession = header.value.parentSession;
  return summary;
}

function lineAround(buffer: Buffer, at: number): string {
  const start = buffer.lastIndexOf(NEWLINE, at) + 1;
  const end = buffer.indexOf(NEWLINE, at);
  return buffer.toString("utf8", start, end < 0 ? buffer.length : end);
}

// Inside JSON strings quotes are escaped, so these byte patterns only match real keys.
function findFirstUserText(buffer: Buffer): string {
  for (let at = buffer.indexOf('"role":"user"'); at >= 0; at = buffer.indexOf('"role":"user"', at + 1)) {
    const parsed = parseSessionEntryLine(lineAround(buffer, at));
    if (!parsed.ok || parsed.value.type !== "message" || parsed.value.message.role !== "user") continue;
    const content = parsed.value.message.content;
    const text =
      typeof content === "string" ? content : content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join(" ");
    const oneLine = text.replace(/\s+/g, " ").trim();
    return oneLine.length > FIRST_MESSAGE_CHARS ? `${oneLine.slice(0, FIRST_MESSAGE_CHARS - 1)}…` : oneLine;
  }
  return "";
}

function countOccurrences(buffer: Buffer, pattern: string): number {
  let count = 0;
  for (let at = buffer.indexOf(pattern); at >= 0; at = buffer.indexOf(pattern, at + pattern.length)) count++;
  return count;
}

/** "provider/model" of the last answer or model change, whichever is later (as a resume picks it). */
function findLastModel(buffer: Buffer): string | undefined {
  const answer = buffer.lastIndexOf('"role":"assistant"');
  const change = buffer.lastIndexOf('{"type":"model_change"');
  if (answer >= 0 && answer > change) {
    const parsed = parseSessionEntryLine(lineAround(buffer, answer));
    if (parsed.ok && parsed.value.type === "message" && parsed.value.message.role === "assistant")
      return `${parsed.value.message.provider}/${parsed.value.message.model}`;
  }
  if (change < 0) return undefined;
  const parsed = parseSessionEntryLine(lineAround(buffer, change));
  return parsed.ok && parsed.value.type === "model_change"
    ? `${parsed.value.provider}/${parsed.value.modelId}`
    : undefined;
}

function findLastName(buffer: Buffer): string | undefined {
  const pattern = '{"type":"session_info"';
  for (let at = buffer.lastIndexOf(pattern); at >= 0; at = at > 0 ? buffer.lastIndexOf(pattern, at - 1) : -1) {
    const parsed = parseSessionEntryLine(lineAround(buffer, at));
    if (parsed.ok && parsed.value.type === "session_info") return parsed.value.name;
  }
  return undefined;
}

/**
 * Resolves `--session <path|id prefix>` to a file path. A value with a path separator or a
 * `.jsonl` suffix is a path (relative to `cwd`); anything else is a prefix of a session id,
 * searched in every directory. Throws a `CliError` ("session_not_found", "bad_usage") when nothing or several match.
 */
export async function resolveSessionArgument(options: {
  sessionsDir: string;
  cwd: string;
  value: string;
}): Promise<string> {
  const { value } = options;
  if (value.includes("/") || value.includes("\\") || value.endsWith(".jsonl")) {
    const path = isAbsolute(value) ? value : resolve(options.cwd, value);
    try {
      await stat(path);
    } catch {
      throw new CliError("session_not_found", `No session file at ${path}. Run gyre --resume to list sessions.`);
    }
    return path;
  }
  const prefix = value.toLowerCase();
  if (prefix.length === 0) throw new CliError("bad_usage", "Give a session file path or the start of a session id.");
  const matches = (await allSessionFiles(options.sessionsDir)).filter((ref) => ref.id.startsWith(prefix));
  if (matches.length === 1) return (matches[0] as SessionFileRef).path;
  if (matches.length === 0)
    throw new CliError(
      "session_not_found",
      `No session id starts with "${value}". Run gyre --resume to list sessions.`,
    );
  const shown = matches.slice(0, 5).map((ref) => ref.id);
  throw new CliError(
    "bad_usage",
    `"${value}" matches ${matches.length} sessions (${shown.join(", ")}${matches.length > 5 ? ", …" : ""}); give more of the id.`,
  );
}
