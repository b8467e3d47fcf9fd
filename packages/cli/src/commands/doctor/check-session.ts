/**
 * `gyre doctor`: checks a session file and the checkpoints it names — a torn last line, damaged
 * lines, tool calls without results, checkpoint trees missing from the shadow repository, stale
 * locks — and says what it found and what a fix does. `repairSession` applies the fixes after
 * copying the file to a backup; it never runs while a live process holds the session.
 */
import { existsSync } from "node:fs";
import { copyFile, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { runGit } from "../../core/checkpoints/run-git.js";
import { workspaceId } from "../../core/checkpoints/shadow-repository.js";
import { parseSessionEntryLine, parseSessionHeader } from "../../core/session/parse-entry.js";
import { judgeLeftLock, lockPathFor, reclaimLeftLock } from "../../core/session/session-lock.js";
import { SessionManager } from "../../core/session/session-manager.js";
import type { SessionEntry } from "../../core/session/types.js";

/** One finding: what is wrong, and what `--fix` does (or why it cannot). */
export type DoctorFinding = {
  kind:
    | "torn_tail"
    | "damaged_line"
    | "missing_parent"
    | "parent_cycle"
    | "orphaned_tool_call"
    | "missing_checkpoint"
    | "stale_lock"
    | "live_lock";
  message: string;
  /** The line of the file it is about (1-based), when it is about one. */
  line?: number;
  fix: string;
  /** The file a fix removes (locks). */
  file?: string;
};

export type SessionDiagnosis = { path: string; findings: DoctorFinding[]; entries: number };

const STALE_INDEX_LOCK_MS = 60_000;

/** Reads `path` without changing anything and lists what is wrong with it. */
export async function diagnoseSession(path: string, options: { gyreHome: string }): Promise<SessionDiagnosis> {
  const text = await readFile(path, "utf8");
  const findings: DoctorFinding[] = [];
  const lines = text.split("\n");
  const torn = !text.endsWith("\n") && text !== "";
  if (torn) {
    findings.push({
      kind: "torn_tail",
      message: `the last line (${lines.length}) is incomplete (a write cut off by a crash)`,
      fix: "drop the incomplete line",
      line: lines.length,
    });
  }
  const header = parseSessionHeader(lines[0] ?? "");
  if (!header.ok) throw new Error(`${path} is not a gyre session: ${header.error}.`);
  const entries: SessionEntry[] = [];
  const last = torn ? lines.length - 1 : lines.length;
  for (let at = 1; at < last; at++) {
    const line = lines[at] as string;
    if (line.trim() === "") continue;
    const parsed = parseSessionEntryLine(line);
    if (parsed.ok) entries.push(parsed.value);
    else
      findings.push({
        kind: "damaged_line",
        message: `line ${at + 1}: ${parsed.error}`,
        fix: "move the line out of the file (the backup keeps it)",
        line: at + 1,
      });
  }
  findings.push(...(await findLoaderProblems(path, findings)));
  findings.push(...findOrphanedToolCalls(entries));
  findings.push(...(await findMissingCheckpoints(entries, options.gyreHome)));
  findings.push(...(await checkLocks(path, entries, options.gyreHome)));
  return { path, findings, entries: entries.length };
}

/**
 * What the session loader itself would skip or work around when gyre opens the file (a parent
 * line lost from the middle, a parentId cycle), so doctor never passes a session that opening
 * then repairs. Lines already reported as damaged are not reported twice.
 */
async function findLoaderProblems(path: string, known: readonly DoctorFinding[]): Promise<DoctorFinding[]> {
  const reported = new Set(known.flatMap((finding) => (finding.line === undefined ? [] : [finding.line])));
  const session = await SessionManager.open(path, { readOnly: true });
  try {
    session.buildContext();
    return session.problems
      .filter((problem) => !reported.has(problem.line))
      .map((problem): DoctorFinding => {
        const missing = /parent entry \S+ is missing/.test(problem.message);
        return {
          kind: missing ? "missing_parent" : "parent_cycle",
          message: `line ${problem.line}: ${problem.message} (gyre works around this each time it opens the session)`,
          fix: missing
            ? "link the entry to the one before it in the file, as every load does"
            : "none needed: every load breaks the cycle the same way",
          line: problem.line,
        };
      });
  } finally {
    await session.close();
  }
}

function findOrphanedToolCalls(entries: readonly SessionEntry[]): DoctorFinding[] {
  const answered = new Set<string>();
  for (const entry of entries)
    if (entry.type === "message" && entry.message.role === "toolResult") answered.add(entry.message.toolCallId);
  const findings: DoctorFinding[] = [];
  const lastAssistant = entries.findLast((entry) => entry.type === "message" && entry.message.role === "assistant");
  for (const entry of entries) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    for (const part of entry.message.content)
      if (part.type === "toolCall" && !answered.has(part.id))
        findings.push({
          kind: "orphaned_tool_call",
          message: `tool call ${part.id} (${part.name}) in entry ${entry.id} has no result (interrupted)`,
          fix:
            entry === lastAssistant
              ? "record an 'interrupted' result for it (the call is not run again)"
              : "none needed: every load gives the model an 'interrupted' result for it",
        });
  }
  return findings;
}

async function findMissingCheckpoints(entries: readonly SessionEntry[], gyreHome: string): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  for (const entry of entries) {
    if (entry.type !== "checkpoint") continue;
    const dir = join(gyreHome, "checkpoints", workspaceId(entry.workspace));
    const present =
      existsSync(join(dir, "git", "HEAD")) &&
      (
        await runGit(
          { gitDir: join(dir, "git"), workTree: dir, indexFile: join(dir, "index") },
          ["cat-file", "-t", entry.ref],
          {
            okCodes: [1, 128],
          },
        )
      ).stdout
        .toString("utf8")
        .trim() === "tree";
    if (!present)
      findings.push({
        kind: "missing_checkpoint",
        message: `checkpoint ${entry.id} (tree ${entry.ref.slice(0, 12)}) is not in the shadow repository (pruned or deleted)`,
        fix: "none possible: rewinding past it restores the conversation only",
      });
  }
  return findings;
}

async function checkLocks(path: string, entries: readonly SessionEntry[], gyreHome: string): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  const lock = lockPathFor(path);
  const judgement = await judgeLeftLock(path);
  if (judgement.kind === "left")
    findings.push({
      kind: "stale_lock",
      message: `${lock} is left behind: ${judgement.reason}`,
      fix: "remove the lock",
      file: lock,
    });
  else if (judgement.kind === "kept")
    findings.push({
      kind: "live_lock",
      message: `the session is locked (${lock}): ${judgement.reason}`,
      fix:
        judgement.holder && judgement.holder.host !== hostname()
          ? `none while it may be in use: quit the gyre on ${judgement.holder.host}; if none runs there, delete ${lock}`
          : "none: quit that gyre first",
    });
  const workspaces = new Set(entries.flatMap((entry) => (entry.type === "checkpoint" ? [entry.workspace] : [])));
  for (const workspace of workspaces) {
    const indexLock = join(gyreHome, "checkpoints", workspaceId(workspace), "index.lock");
    const age = await stat(indexLock).then(
      (info) => Date.now() - info.mtimeMs,
      () => -1,
    );
    if (age > STALE_INDEX_LOCK_MS)
      findings.push({
        kind: "stale_lock",
        message: `${indexLock} is ${Math.round(age / 1000)} s old (a snapshot was killed)`,
        fix: "remove the lock",
        file: indexLock,
      });
  }
  return findings;
}

/**
 * Applies the fixes of `diagnosis`: copies the file to `<path>.bak-<time>`, rewrites it without
 * the torn and damaged lines (moved to `<path>.damaged-<time>`), removes stale locks and answers
 * the leaf's interrupted tool calls. Returns what it did, one sentence per action.
 */
export async function repairSession(diagnosis: SessionDiagnosis): Promise<string[]> {
  const { path, findings } = diagnosis;
  if (findings.some((finding) => finding.kind === "live_lock"))
    throw new Error("Another gyre has this session open; quit it before running doctor --fix.");
  const done: string[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const backup = `${path}.bak-${stamp}`;
  await copyFile(path, backup);
  done.push(`copied the session to ${backup}`);
  for (const finding of findings.filter((item) => item.kind === "stale_lock")) {
    if (finding.file === lockPathFor(path)) {
      // Judged again as it goes: a gyre that took the lock since the diagnosis keeps it.
      const outcome = await reclaimLeftLock(path);
      if (outcome.kind === "kept")
        throw new Error(`The session's lock is in use again (${outcome.reason}); nothing was changed but the backup.`);
      if (outcome.kind === "reclaimed") done.push(`removed ${finding.file} (${outcome.reason})`);
      continue;
    }
    await rm(finding.file as string, { force: true });
    done.push(`removed ${finding.file}`);
  }
  if (findings.some((finding) => finding.kind === "torn_tail" || finding.kind === "damaged_line")) {
    done.push(...(await dropBadLines(path, stamp)));
  }
  // Dropping lines can orphan the entries after them: relinked like the ones found missing.
  done.push(...(await relinkMissingParents(path)));
  const session = await SessionManager.open(path);
  const answered = session.repairInterruptedToolCalls();
  await session.close();
  if (answered > 0) done.push(`recorded ${answered} interrupted tool result(s) on the current branch`);
  return done;
}

async function dropBadLines(path: string, stamp: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  const lines = text.split("\n");
  // The last piece is "" after a final newline, or the torn line without one.
  const complete = lines.slice(0, -1);
  const torn = text.endsWith("\n") ? [] : lines.slice(-1);
  const kept = [complete[0] as string];
  const dropped = [...torn];
  for (const line of complete.slice(1)) {
    if (line.trim() === "" || parseSessionEntryLine(line).ok) kept.push(line);
    else dropped.push(line);
  }
  await writeFile(`${path}.damaged-${stamp}`, `${dropped.join("\n")}\n`);
  await writeFile(`${path}.doctor-tmp`, `${kept.filter((line) => line.trim() !== "").join("\n")}\n`);
  await rename(`${path}.doctor-tmp`, path);
  return [`moved ${dropped.length} torn or damaged line(s) to ${path}.damaged-${stamp}`];
}

/**
 * Gives every entry whose parent is in no line of the file the entry before it in the file as
 * its parent: what the loader does on every open (core/session/session-tree.ts), made lasting.
 */
async function relinkMissingParents(path: string): Promise<string[]> {
  const lines = (await readFile(path, "utf8")).split("\n");
  const ids = new Set<string>();
  for (const line of lines.slice(1)) {
    const parsed = line.trim() === "" ? undefined : parseSessionEntryLine(line);
    if (parsed?.ok) ids.add(parsed.value.id);
  }
  let previous: string | null = null;
  let relinked = 0;
  for (let at = 1; at < lines.length; at++) {
    const parsed = (lines[at] as string).trim() === "" ? undefined : parseSessionEntryLine(lines[at] as string);
    if (!parsed?.ok) continue;
    const entry = parsed.value;
    if (entry.parentId !== null && !ids.has(entry.parentId)) {
      lines[at] = JSON.stringify({ ...(JSON.parse(lines[at] as string) as object), parentId: previous });
      relinked++;
    }
    previous = entry.id;
  }
  if (relinked === 0) return [];
  await writeFile(`${path}.doctor-tmp`, lines.join("\n"));
  await rename(`${path}.doctor-tmp`, path);
  return [`linked ${relinked} entr${relinked === 1 ? "y" : "ies"} whose parent line was lost to the entry before it`];
}
