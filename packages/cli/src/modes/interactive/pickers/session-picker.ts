import type { SelectItem } from "@mariozechner/pi-tui";
import { listSessions } from "../../../core/session/session-store.js";
import type { SessionSummary } from "../../../core/session/types.js";

/** "3 min ago", "yesterday 14:02"-style ages are overkill here: a sortable local date and time. */
function formatDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * Picker rows for sessions: the name or first message, then when and which. A session started
 * from another listed one (a subagent's, a fork) comes right under it, marked "↳", so the link
 * from a parent to its subagents' journals shows.
 */
export function toSessionItems(sessions: readonly SessionSummary[]): SelectItem[] {
  const listed = new Set(sessions.map((session) => session.path));
  const children = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    const parent = session.parentSession;
    if (parent !== undefined && listed.has(parent) && parent !== session.path)
      children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  const items: SelectItem[] = [];
  const visit = (session: SessionSummary, depth: number, seen: Set<string>) => {
    if (seen.has(session.path)) return;
    seen.add(session.path);
    const title = (session.name ?? session.firstMessage) || "(no messages)";
    items.push({
      value: session.path,
      label: depth === 0 ? title : `${"  ".repeat(depth - 1)}↳ ${title}`,
      description: `${formatDate(session.modified)} · ${session.id.slice(0, 8)}`,
    });
    for (const child of children.get(session.path) ?? []) visit(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const session of sessions) {
    const parent = session.parentSession;
    if (parent === undefined || !listed.has(parent) || parent === session.path) visit(session, 0, seen);
  }
  // A cycle of parents (hand-edited files) has no root: list what is left flat.
  for (const session of sessions) visit(session, 0, seen);
  return items;
}

/** Sessions of `cwd`, newest first, without the one that is open (its lock is ours). */
export async function listResumableSessions(options: {
  sessionsDir: string;
  cwd: string;
  exclude?: string | undefined;
}): Promise<SessionSummary[]> {
  const sessions = await listSessions({ sessionsDir: options.sessionsDir, cwd: options.cwd });
  return sessions.filter((session) => session.path !== options.exclude);
}
