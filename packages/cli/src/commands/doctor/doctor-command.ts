/**
 * `gyre doctor [session] [--fix] [--json]`: checks the installation (check-installation.ts,
 * check-mcp.ts) and one session with the checkpoints it names (check-session.ts; default: the
 * session `gyre -c` would continue, named in the output). Each finding says what to do; --fix
 * repairs the session after a backup. Exit 0 when nothing failed (or all was repaired), 1 when
 * something failed, 2 for bad usage.
 */
import { getSessionsDir } from "../../core/config/paths.js";
import { findNewestSession, resolveSessionArgument } from "../../core/session/session-store.js";
import type { CommandIo } from "../command-io.js";
import { parseCommandWords } from "../usage-error.js";
import {
  checkGit,
  checkNode,
  checkProviderKeys,
  checkRipgrep,
  checkSandbox,
  type DoctorCheck,
} from "./check-installation.js";
import { checkMcpServers } from "./check-mcp.js";
import { type DoctorFinding, diagnoseSession, repairSession } from "./check-session.js";

export const doctorUsage = `Usage:
  gyre doctor [session] [--fix] [--json] [--mcp-timeout <ms>]

Checks the installation — Node, bubblewrap (it starts a real sandbox), git, ripgrep, which
provider keys are set (names only), every configured MCP server (connected for real) — and one
session with its checkpoints: by default the one gyre -c would continue in this folder, or the
path or id prefix given. Each line is ok, warn or fail; warn and fail say what to do.

  --fix              repair the session (a backup of the file is kept first)
  --json             one JSON object on stdout instead of lines
  --mcp-timeout <ms> how long each MCP server gets to connect (default 5000)

Exit 0 when nothing failed, 1 when something did, 2 for bad usage.
`;

/** Findings no repair can change; they are reported but do not keep --fix from "repaired". */
const UNFIXABLE: ReadonlySet<DoctorFinding["kind"]> = new Set([
  "missing_checkpoint",
  "orphaned_tool_call",
  "parent_cycle",
]);

type SessionReport = {
  path?: string;
  picked?: "newest" | "argument";
  entries?: number;
  findings: DoctorFinding[];
  repairs: string[];
  remaining?: number;
  error?: string;
};

export async function runDoctorCommand(args: string[], io: CommandIo): Promise<number> {
  const parsed = parseCommandWords("doctor", args, {
    fix: { type: "boolean" },
    json: { type: "boolean" },
    "mcp-timeout": { type: "string" },
  });
  if (!parsed.ok) {
    io.stderr.write(`gyre: ${parsed.error}\n`);
    return 2;
  }
  const { values, positionals } = parsed.value;
  if (positionals.length > 1) {
    io.stderr.write(`gyre: doctor checks one session (a path or id prefix); got ${positionals.join(" ")}.\n`);
    return 2;
  }
  const timeoutMs = Number(values["mcp-timeout"] ?? 5_000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    io.stderr.write(`gyre: --mcp-timeout needs a positive number of milliseconds; got "${values["mcp-timeout"]}".\n`);
    return 2;
  }
  const sessionsDir = getSessionsDir(io.gyreHome);
  let path: string | undefined;
  try {
    path =
      positionals[0] === undefined
        ? await findNewestSession({ sessionsDir, cwd: io.cwd })
        : await resolveSessionArgument({ sessionsDir, cwd: io.cwd, value: positionals[0] });
  } catch (error) {
    io.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 2;
  }
  const checks = await checkInstallation(io, timeoutMs);
  const session = await checkSession(
    path,
    positionals[0] === undefined ? "newest" : "argument",
    io,
    values.fix === true,
  );
  const failed = checks.some((check) => check.status === "fail") || sessionFailed(session, values.fix === true);
  if (values.json) io.stdout.write(`${JSON.stringify({ ok: !failed, checks, session })}\n`);
  else writeReport(io, checks, session, values.fix === true);
  return failed ? 1 : 0;
}

async function checkInstallation(io: CommandIo, timeoutMs: number): Promise<DoctorCheck[]> {
  const [sandbox, git, ripgrep, keys, mcp] = await Promise.all([
    checkSandbox(io.env),
    checkGit(io.env),
    checkRipgrep(io.env),
    checkProviderKeys(io.env, io.gyreHome),
    checkMcpServers(io, timeoutMs),
  ]);
  return [checkNode(), sandbox, git, ripgrep, ...keys, ...mcp];
}

async function checkSession(
  path: string | undefined,
  picked: "newest" | "argument",
  io: CommandIo,
  fix: boolean,
): Promise<SessionReport> {
  if (path === undefined) return { findings: [], repairs: [] };
  const report: SessionReport = { path, picked, findings: [], repairs: [] };
  try {
    const diagnosis = await diagnoseSession(path, { gyreHome: io.gyreHome });
    report.entries = diagnosis.entries;
    report.findings = diagnosis.findings;
    if (!fix || diagnosis.findings.length === 0) return report;
    report.repairs = await repairSession(diagnosis);
    const remaining = (await diagnoseSession(path, { gyreHome: io.gyreHome })).findings;
    report.remaining = remaining.filter((finding) => !UNFIXABLE.has(finding.kind)).length;
  } catch (error) {
    report.error = (error as Error).message;
  }
  return report;
}

function sessionFailed(session: SessionReport, fix: boolean): boolean {
  if (session.error !== undefined) return true;
  return fix && session.remaining !== undefined ? session.remaining > 0 : session.findings.length > 0;
}

function writeReport(io: CommandIo, checks: DoctorCheck[], session: SessionReport, fix: boolean): void {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  for (const check of checks) {
    out(`${check.status.padEnd(4)}  ${check.name}: ${check.detail}`);
    if (check.fix) out(`      fix: ${check.fix}`);
  }
  if (session.path === undefined) {
    out("ok    session: this folder has no session yet (name one: gyre doctor <path or id>)");
    return;
  }
  const why = session.picked === "newest" ? "the newest of this folder, the one gyre -c continues" : "as named";
  out(`${sessionStatus(session, fix).padEnd(4)}  session: ${session.path} (${why})`);
  if (session.error !== undefined && session.entries === undefined) {
    out(`      ${session.error}`);
    return;
  }
  out(`${session.path}: ${session.entries} entries, ${session.findings.length} problem(s)`);
  for (const finding of session.findings)
    out(`  found: ${finding.message}\n    ${fix ? "fix" : "--fix would"}: ${finding.fix}`);
  const fixable = session.findings.some((finding) => !UNFIXABLE.has(finding.kind) && finding.kind !== "live_lock");
  if (!fix && fixable) out(`  to repair: gyre doctor ${session.path} --fix`);
  for (const action of session.repairs) out(`  did: ${action}`);
  // A repair that could not run (another gyre holds the session) after what was found.
  if (session.error !== undefined) out(`  ${session.error}`);
  if (session.remaining !== undefined)
    out(session.remaining === 0 ? "  repaired" : `  ${session.remaining} problem(s) remain`);
}

function sessionStatus(session: SessionReport, fix: boolean): string {
  if (sessionFailed(session, fix)) return "fail";
  return session.findings.length > 0 ? "warn" : "ok";
}
