/**
 * The one seam through which a session's lines can be made durable somewhere besides its file
 * (the fleet's Redis store, see fleet/session-store.ts). A journal registered for a session file's
 * path receives every line before the file does, and a write counts as done (`flush()` resolves)
 * only once the journal acknowledged it: the journal, not the file, is then the source of truth.
 * Without a registration nothing changes: the local JSONL file is the default store.
 */

/** Where a session's lines go first. `append` resolves once they are durable there; it rejects when they are not. */
export type SessionJournal = { append(lines: readonly string[]): Promise<void> };

let journalResolver: ((path: string) => SessionJournal | undefined) | undefined;

/** Registers, for this process, which session file paths have a journal (undefined clears it). */
export function setSessionJournal(resolver: ((path: string) => SessionJournal | undefined) | undefined): void {
  journalResolver = resolver;
}

/** The journal of the session file at `path`, if one is registered. */
export function sessionJournalFor(path: string): SessionJournal | undefined {
  return journalResolver?.(path);
}
