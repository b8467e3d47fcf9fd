import type { SelectItem } from "@mariozechner/pi-tui";
import { listSessions } from "../../../core/session/session-store.js";
import type { SessionSummary } from "../../../core/session/types.js";

/** "3 min ago", "yesterday 14:02"-style ages are overkill here: a sortable local date and time. */
function formatDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Picker rows for sessions: the name or first message, then when and which. */
export function toSessionItems(sessions: readonly SessionSummary[]): SelectItem[] {
  return sessions.map((session) => ({
    value: session.path,
    label: (session.name ?? session.firstMessage) || "(no messages)",
    description: `${formatDate(session.modified)} · ${session.id.slice(0, 8)}`,
  }));
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
