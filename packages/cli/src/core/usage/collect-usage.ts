/**
 * `gyre stats`' reading: every session file under the sessions folder (one folder per project),
 * a few at a time, each streamed (only its calls are kept, not its lines). Files not written
 * since `--since` are not opened at all.
 */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readSessionUsage, type SessionUsageFile } from "./read-session-usage.js";
import { UsageAggregator, type UsageReport } from "./usage-report.js";

export type CollectUsageOptions = {
  sessionsDir: string;
  /** Only calls at or after this time. */
  since?: Date;
  /** Files read at once (default 16). */
  concurrency?: number;
};

/**
 * The usage report over the sessions on disk; an absent sessions folder is an empty report. Files
 * are read in parallel, then counted in an order that puts every session before its forks, so an
 * answer a fork copied counts once, for the session that made the call, however the reads finished.
 */
export async function collectUsage(options: CollectUsageOptions): Promise<UsageReport> {
  const aggregator = new UsageAggregator();
  const sinceMs = options.since?.getTime();
  const files = await listSessionFiles(options.sessionsDir);
  const read: SessionUsageFile[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const path = files[next++] as string;
      if (sinceMs !== undefined && !(await writtenSince(path, sinceMs))) continue;
      const file = await readSessionUsage(path, sinceMs === undefined ? {} : { sinceMs }).catch(() => undefined);
      if (file) read.push(Object.assign(file, { path }));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  const seen = new Set<string>();
  for (const file of parentsFirst(read)) {
    aggregator.unreadableLines += file.unreadableLines;
    const calls = file.calls.filter((call) => !seen.has(call.key));
    for (const call of calls) seen.add(call.key);
    if (calls.length > 0 || sinceMs === undefined) aggregator.addSession(file.sessionId, file.isSubagent);
    for (const { key: _key, ...call } of calls) aggregator.add(call);
  }
  return aggregator.report(options.since);
}

/** Sessions ordered by how many forks deep they are (a parent not on disk counts as none), then by path. */
function parentsFirst(files: SessionUsageFile[]): SessionUsageFile[] {
  const path = (file: SessionUsageFile) => (file as SessionUsageFile & { path: string }).path;
  // A header names its parent by the parent's file path (a session id in older files).
  const byId = new Map(
    files.flatMap((file) => [[file.sessionId, file] as const, [resolve(path(file)), file] as const]),
  );
  const depths = new Map<SessionUsageFile, number>();
  const depthOf = (file: SessionUsageFile, seen = new Set<SessionUsageFile>()): number => {
    const known = depths.get(file);
    if (known !== undefined) return known;
    const parent =
      file.parentSession === undefined
        ? undefined
        : (byId.get(resolve(file.parentSession)) ?? byId.get(file.parentSession));
    // A cycle (a damaged header) stops where it closes.
    const depth = parent && !seen.has(parent) ? depthOf(parent, seen.add(file)) + 1 : 0;
    depths.set(file, depth);
    return depth;
  };
  return [...files].sort((a, b) => depthOf(a) - depthOf(b) || (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : 0));
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
