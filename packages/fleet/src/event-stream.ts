/**
 * The entries of a job's events stream (`gyre:fleet:<queue>:events:<job>`): each holds one JSON
 * line of JSON mode (`event`), the attempt's own run id (`run`, random: a stalled job can run again
 * under the same attempt number) and the line's place in that run (`seq`, from 1). ioredis sends a
 * command again after a reconnect when its reply was lost, so an XADD can land twice with two
 * Redis ids; the reader drops any entry whose `seq` its run has already delivered.
 */

/** The field/value list of one events-stream entry. */
export function eventEntryFields(line: string, run: string, seq: number): string[] {
  return ["event", line, "run", run, "seq", String(seq)];
}

/**
 * A reader's memory of what it has delivered: `accept` gives the event of an entry seen for the
 * first time (parsed), and undefined for a repeat or a line that is not JSON (one bad entry
 * never stops a follower). Entries without `run`/`seq` (older workers) are never taken for repeats.
 */
export function createEventDeduper(): { accept(fields: readonly string[]): Record<string, unknown> | undefined } {
  const delivered = new Map<string, number>();
  return {
    accept(fields) {
      const values = new Map<string, string>();
      for (let index = 0; index + 1 < fields.length; index += 2)
        values.set(fields[index] as string, fields[index + 1] as string);
      const run = values.get("run");
      const seq = Number(values.get("seq"));
      if (run !== undefined && Number.isInteger(seq)) {
        // A run's lines are written one after another (each XADD awaits the last), so a resend
        // lands right behind its original: "at or below the highest seen" is a repeat.
        if (seq <= (delivered.get(run) ?? 0)) return undefined;
        delivered.set(run, seq);
      }
      const line = values.get("event");
      if (line === undefined) return undefined;
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    },
  };
}
