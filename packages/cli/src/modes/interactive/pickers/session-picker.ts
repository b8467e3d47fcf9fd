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
 * (and the folder, when sessions of every project are listed).
 */
export function toSessionItems(
  sessions: readonly SessionSummary[],
  options: { showFolder?: boolean; home?: string | undefined; now?: number } = {},
): SelectItem[] {
  return sessions.map((session) => {
    const parts = [
      countOf(session.messageCount, "message"),
      session.model ?? "no model yet",
      formatSize(session.size),
      formatAge(session.modified, options.now),
    ];
    if (isHeadless(session)) parts.push("-p");
    // First, so a narrow screen cuts the details rather than which project it is.
    if (options.showFolder) parts.unshift(shortenHome(session.cwd, options.home));
    return {
      value: session.path,
      label: (session.name ?? session.firstMessage) || "(no messages)",
      description: parts.join(" · "),
    };
  });
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
