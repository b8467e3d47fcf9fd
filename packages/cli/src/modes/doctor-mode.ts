/**
 * `gyre doctor [session] [--fix]`: checks a session (default: the newest of this folder) and the
 * checkpoints it names, prints each finding with what a fix does, and with --fix repairs it after
 * a backup. Exit 0 when healthy or repaired, 1 when problems remain, 2 for bad usage.
 */
import type { Writable } from "node:stream";
import { getSessionsDir } from "../core/config/paths.js";
import { diagnoseSession, repairSession } from "../core/doctor/check-session.js";
import { findNewestSession, resolveSessionArgument } from "../core/session/session-store.js";

export type DoctorOptions = { argv: string[]; cwd: string; gyreHome: string; stdout: Writable; stderr: Writable };

export async function runDoctorMode(options: DoctorOptions): Promise<number> {
  const fix = options.argv.includes("--fix");
  const rest = options.argv.filter((arg) => arg !== "--fix");
  const unknown = rest.find((arg) => arg.startsWith("-"));
  if (unknown !== undefined || rest.length > 1) {
    options.stderr.write(`gyre: doctor takes one session (path or id prefix) and --fix; got ${rest.join(" ")}.\n`);
    return 2;
  }
  const sessionsDir = getSessionsDir(options.gyreHome);
  let path: string | undefined;
  try {
    path =
      rest[0] === undefined
        ? await findNewestSession({ sessionsDir, cwd: options.cwd })
        : await resolveSessionArgument({ sessionsDir, cwd: options.cwd, value: rest[0] });
  } catch (error) {
    options.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 2;
  }
  if (path === undefined) {
    options.stderr.write("gyre: this folder has no sessions; name one: gyre doctor <path or id>.\n");
    return 2;
  }
  try {
    const diagnosis = await diagnoseSession(path, { gyreHome: options.gyreHome });
    const out = (line: string) => options.stdout.write(`${line}\n`);
    out(`${path}: ${diagnosis.entries} entries, ${diagnosis.findings.length} problem(s)`);
    for (const finding of diagnosis.findings)
      out(`  found: ${finding.message}\n    ${fix ? "fix" : "--fix would"}: ${finding.fix}`);
    if (diagnosis.findings.length === 0) return 0;
    if (!fix) return 1;
    for (const action of await repairSession(diagnosis)) out(`  did: ${action}`);
    const remaining = (await diagnoseSession(path, { gyreHome: options.gyreHome })).findings;
    const unfixable = remaining.filter(
      (finding) => finding.kind === "missing_checkpoint" || finding.kind === "orphaned_tool_call",
    );
    out(remaining.length === unfixable.length ? "  repaired" : `  ${remaining.length} problem(s) remain`);
    return remaining.length === unfixable.length ? 0 : 1;
  } catch (error) {
    options.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 1;
  }
}
