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
import { runGit } from "../checkpoints/run-git.js";
import { workspaceId } from "../checkpoints/shadow-repository.js";
import { parseSessionEntryLine, parseSessionHeader } from "../session/parse-entry.js";
import { lockPathFor } from "../session/session-lock.js";
import { SessionManager } from "../session/session-manager.js";
import type { SessionEntry } from "../session/types.js";

/** One finding: what is wrong, and what `--fix` does (or why it cannot). */
export type DoctorFinding = {
  kind: "torn_tail" | "damaged_line" | "orphaned_tool_call" | "missing_checkpoint" | "stale_lock" | "live_lock";
  message: string;
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
      });
  }
  findings.push(...findOrphanedToolCalls(entries));
  findings.push(...(await findMissingCheckpoints(entries, options.gyreHome)));
  findings.push(...(await checkLocks(path, entries, options.gyreHome)));
  return { path, findings, entries: entries.length };
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

function isDeadHere(pid: number, host: string): boolean {
  if (host !== hostname() || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

async function checkLocks(path: string, entries: readonly SessionEntry[], gyreHome: string): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  const lock = lockPathFor(path);
  const owner = await readFile(lock, "utf8").then(
    (text) => JSON.parse(text) as { pid?: unknown; host?: unknown },
    () => undefined,
  );
  if (owner !== undefined) {
    const pid = typeof owner.pid === "number" ? owner.pid : -1;
    const host = typeof owner.host === "string" ? owner.host : "";
    if (pid < 0 || isDeadHere(pid, host))
      findings.push({
        kind: "stale_lock",
        message: `${lock} is left by process ${pid}, which is gone`,
        fix: "remove the lock",
        file: lock,
      });
    else
      findings.push({
        kind: "live_lock",
        message: `process ${pid} on ${host} has the session open`,
        fix: "none: quit that gyre first",
      });
  }
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
    await rm(finding.file as string, { force: true });
    done.push(`removed ${finding.file}`);
  }
  if (findings.some((finding) => finding.kind === "torn_tail" || finding.kind === "damaged_line")) {
    done.push(...(await dropBadLines(path, stamp)));
  }
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
