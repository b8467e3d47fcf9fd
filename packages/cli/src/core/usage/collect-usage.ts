/**
 * `gyre stats`' reading: every session file under the sessions folder (one folder per project),
 * a few at a time, each streamed and summed as it is read, so memory stays flat with the number
 * of sessions. Files not written since `--since` are not opened at all.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { readSessionUsage } from "./read-session-usage.js";
import { UsageAggregator, type UsageReport } from "./usage-report.js";

export type CollectUsageOptions = {
  sessionsDir: string;
  /** Only calls at or after this time. */
  since?: Date;
  /** Files read at once (default 16). */
  concurrency?: number;
};

/** The usage report over the sessions on disk; an absent sessions folder is an empty report. */
export async function collectUsage(options: CollectUsageOptions): Promise<UsageReport> {
  const aggregator = new UsageAggregator();
  const sinceMs = options.since?.getTime();
  const seen = new Set<string>();
  const files = await listSessionFiles(options.sessionsDir);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const path = files[next++] as string;
      if (sinceMs !== undefined && !(await writtenSince(path, sinceMs))) continue;
      const file = await readSessionUsage(path, { ...(sinceMs === undefined ? {} : { sinceMs }), seen }).catch(
        () => undefined,
      );
      if (!file) continue;
      aggregator.unreadableLines += file.unreadableLines;
      if (file.calls.length > 0 || sinceMs === undefined) aggregator.addSession(file.sessionId, file.isSubagent);
      for (const call of file.calls) aggregator.add(call);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  return aggregator.report(options.since);
}

async function writtenSince(path: string, sinceMs: number): Promise<boolean> {
  try {
    return (await stat(path)).mtimeMs >= sinceMs;
  } catch {
    return false;
  }
}

/** Every `*.jsonl` one folder below `sessionsDir`, sorted (a file removed meanwhile is skipped later). */
export async function listSessionFiles(sessionsDir: string): Promise<string[]> {
  let projects: string[];
  try {
    projects = await readdir(sessionsDir);
  } catch {
    return [];
  }
  const lists = await Promise.all(
    projects.map(async (project) => {
      const dir = join(sessionsDir, project);
      const names = await readdir(dir).catch(() => [] as string[]);
      return names.filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name));
    }),
  );
  return lists.flat().sort();
}

/**
 * Parses a `--since` value: a span back from `now` ("7d", "12h", "30m", "2w") or a date
 * ("2026-11-01", any ISO time). Undefined when it is neither.
 */
export function parseSince(text: string, now: Date = new Date()): Date | undefined {
  const span = /^(\d+)\s*([mhdw])$/.exec(text.trim());
  if (span) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[span[2] as "m" | "h" | "d" | "w"];
    return new Date(now.getTime() - Number(span[1]) * unit);
  }
  if (!/^\d{4}-\d\d-\d\d/.test(text.trim())) return undefined;
  const date = new Date(text.trim());
  return Number.isNaN(date.getTime()) ? undefined : date;
}
