/**
 * `gyre replay <session.jsonl> [--workspace DIR] [--tools a,b] [--sandbox mode] [--ignore REGEX]…`: re-runs every
 * request of the session, in order, each with its recorded model outputs as a faux script (no
 * model call, no cost) against this build's tools, in one fresh copy of the workspace
 * (`--workspace`, else the session's folder as it is now) and one replay session that each
 * request continues, and reports each tool result that differs from the recorded one (durations,
 * timestamps and `--ignore` matches masked on both sides; replay.ts). Exit 0
 * when all match, 1 when any differs or a request did not finish, 2 on bad input.
 */
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import type { Writable } from "node:stream";
import { CliError, SessionManager } from "gyre/fleet-support";
import { parseCommandArgs } from "./command-args.js";
import { compareRequests, type RecordedRequest, recordedRequests, renderDifferences } from "./replay.js";
import { runGyreChild } from "./run-gyre-child.js";
import { freshWorkspace, sessionHeaderLine } from "./workspace-copy.js";

type Io = { stdout: Writable; stderr: Writable; env: NodeJS.ProcessEnv; cwd: string; gyreBin: string };

const FLAGS = {
  workspace: { type: "string" },
  tools: { type: "string" },
  sandbox: { type: "string" },
  timeout: { type: "string" },
  ignore: { type: "string", multiple: true },
} as const;

async function readBranch(path: string) {
  try {
    const session = await SessionManager.open(path, { readOnly: true });
    const messages = session.getBranch().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
    return { cwd: session.cwd, messages };
  } catch (error) {
    throw new CliError("bad_usage", `Cannot read the session ${path}: ${(error as Error).message}`);
  }
}

/** Runs `gyre replay`; returns the exit code. */
export async function runReplayCommand(argv: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs("replay", argv, FLAGS);
  if (positionals.length !== 1)
    throw new CliError("bad_usage", "gyre replay needs one session file: gyre replay path/to/session.jsonl.");
  const sessionPath = nodePath.resolve(io.cwd, positionals[0] as string);
  const recordedSession = await readBranch(sessionPath);
  let requests: RecordedRequest[];
  try {
    requests = recordedRequests(recordedSession.messages);
  } catch (error) {
    throw new CliError("bad_usage", (error as Error).message);
  }
  const ignore = (values.ignore ?? []).map((source) => {
    try {
      return new RegExp(source, "g");
    } catch (error) {
      throw new CliError(
        "bad_usage",
        `gyre replay: --ignore ${JSON.stringify(source)} is not a regular expression (${(error as Error).message}).`,
      );
    }
  });
  const folder = nodePath.resolve(io.cwd, values.workspace ?? recordedSession.cwd);
  if (
    !(await access(folder).then(
      () => true,
      () => false,
    ))
  )
    throw new CliError(
      "bad_usage",
      `The workspace ${folder} does not exist; pass the folder as it was before the session with --workspace DIR.`,
    );
  if (values.workspace === undefined)
    io.stderr.write(
      `gyre replay: replaying in a copy of ${folder} as it is now (pass --workspace for its state before the session)\n`,
    );
  const scratch = await mkdtemp(nodePath.join(tmpdir(), "gyre-replay-"));
  const workspace = await freshWorkspace({ folder }, "gyre-replay-ws-");
  try {
    const sessionFile = nodePath.join(scratch, "replay.jsonl");
    await writeFile(sessionFile, `${sessionHeaderLine(workspace.cwd)}\n`, { mode: 0o600 });
    let finished = true;
    for (const [index, request] of requests.entries()) {
      const scriptFile = nodePath.join(scratch, `script-${index + 1}.json`);
      await writeFile(scriptFile, JSON.stringify(request.script));
      const outcome = await runGyreChild({
        gyreBin: io.gyreBin,
        cwd: workspace.cwd,
        sessionFile,
        args: [
          "--provider",
          "faux",
          "--faux-script",
          scriptFile,
          ...(values.tools ? ["--tools", values.tools] : []),
          ...(values.sandbox ? ["--sandbox", values.sandbox] : []),
        ],
        prompt: request.prompt,
        env: io.env,
        timeoutMs: Number(values.timeout ?? 600) * 1000,
      });
      if (outcome.result !== undefined) continue;
      finished = false;
      io.stderr.write(
        `gyre replay: request ${index + 1} ended without a result (exit ${outcome.exitCode}): ${outcome.stderrTail.split("\n").at(-1) ?? ""}\n`,
      );
    }
    const replayed = recordedRequests((await readBranch(sessionFile)).messages);
    const differences = compareRequests(
      requests,
      replayed,
      { recorded: recordedSession.cwd, replayed: workspace.cwd },
      ignore,
    );
    const count = (list: readonly RecordedRequest[]) => list.reduce((sum, request) => sum + request.results.length, 0);
    io.stdout.write(renderDifferences(differences));
    io.stdout.write(
      `${count(requests)} recorded tool result(s) in ${requests.length} request(s), ${count(replayed)} replayed, ${differences.length} differ.\n`,
    );
    return differences.length === 0 && finished ? 0 : 1;
  } finally {
    await workspace.cleanup();
    await rm(scratch, { recursive: true, force: true });
  }
}
