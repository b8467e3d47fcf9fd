/**
 * The one seam through which a session's lines can be made durable somewhere besides its file
 * (the fleet's Redis store, see fleet/session-store.ts). A journal given for a session file's
 * path receives every line before the file does, and a write counts as done (`flush()` resolves)
 * only once the journal acknowledged it: the journal, not the file, is then the source of truth.
 * It is an option of the store (`SessionManager.create`/`open`, and so of the session), never a
 * process-wide setting; without one the local JSONL file is the only store.
 */

/** Where a session's lines go first. `append` resolves once they are durable there; it rejects when they are not. */
export type SessionJournal = { append(lines: readonly string[]): Promise<void> };

/** Which session file paths have a journal: the journal of the file at `path`, or undefined. */
export type SessionJournals = (path: string) => SessionJournal | undefined;
