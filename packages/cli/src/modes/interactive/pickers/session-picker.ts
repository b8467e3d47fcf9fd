import type { SelectItem } from "@mariozechner/pi-tui";
import { listSessions } from "../../../core/session/session-store.js";
import type { SessionSummary } from "../../../core/session/types.js";
import { countOf } from "../count-of.js";

/** "just now", "5m ago", "3h ago", "2d ago", then the date: how long since the session was written. */
export function formatAge(date: Date, now = Date.now()): string {
  const minutes = Math.floor((now - date.getTime()) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  if (days < 30) return `${days}d ago`;
  return date.toISOString().slice(0, 10);
}

/** Bytes as "812 B", "14 KB", "3.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Whether a session was started by `-p` (print or JSON mode). */
export function isHeadless(session: SessionSummary): boolean {
  return session.mode === "print" || session.mode === "json";
}

/**
 * Picker rows for sessions: the name or first message, then message count, model, size and age
 * (and the folder, when sessions of every project are listed). A session started from another
 * listed one (a subagent's, a fork) comes right under it, marked "↳", so the link from a parent to
 * its subagents' journals shows.
 */
export function toSessionItems(
  sessions: readonly SessionSummary[],
  options: { showFolder?: boolean; home?: string | undefined; now?: number } = {},
): SelectItem[] {
  const item = (session: SessionSummary, depth: number): SelectItem => {
    const parts = [
      countOf(session.messageCount, "message"),
      session.model ?? "no model yet",
      formatSize(session.size),
      formatAge(session.modified, options.now),
    ];
    if (isHeadless(session)) parts.push("-p");
    // First, so a narrow screen cuts the details rather than which project it is.
    if (options.showFolder) parts.unshift(shortenHome(session.cwd, options.home));
    const title = (session.name ?? session.firstMessage) || "(no messages)";
    return {
      value: session.path,
      label: depth === 0 ? title : `${"  ".repeat(depth - 1)}↳ ${title}`,
      description: parts.join(" · "),
    };
  };
  return inTreeOrder(sessions).map(({ session, depth }) => item(session, depth));
}

/** Sessions with each one's children (by `parentSession`) right after it, and their depth. */
function inTreeOrder(sessions: readonly SessionSummary[]): { session: SessionSummary; depth: number }[] {
  const listed = new Set(sessions.map((session) => session.path));
  const isRoot = (session: SessionSummary) =>
    session.parentSession === undefined || !listed.has(session.parentSession) || session.parentSession === session.path;
  const children = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    if (isRoot(session)) continue;
    const parent = session.parentSession as string;
    children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  const ordered: { session: SessionSummary; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (session: SessionSummary, depth: number) => {
    if (seen.has(session.path)) return;
    seen.add(session.path);
    ordered.push({ session, depth });
    for (const child of children.get(session.path) ?? []) visit(child, depth + 1);
  };
  for (const session of sessions) if (isRoot(session)) visit(session, 0);
  // A cycle of parents (hand-edited files) has no root: list what is left flat.
  for (const session of sessions) visit(session, 0);
  return ordered;
}

function shortenHome(path: string, home: string | undefined): string {
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}

/** Sessions of `cwd` (or of every folder), newest first, without the one that is open (its lock is ours). */
export async function listResumableSessions(options: {
  sessionsDir: string;
  cwd: string;
  allProjects?: boolean;
  exclude?: string | undefined;
}): Promise<SessionSummary[]> {
  const sessions = await listSessions({
    sessionsDir: options.sessionsDir,
    ...(options.allProjects ? {} : { cwd: options.cwd }),
  });
  return sessions.filter((session) => session.path !== options.exclude);
}
