/**
 * `gyre review [--base <ref>] [--uncommitted] [--focus <text>] [--json] [gyre flags…]`
 * (docs/review.md): the `review` op from the command line. A read-only subagent reviews the
 * changes and the findings are printed, `path:line severity: text` each, or as JSON.
 */
import { BUILT_IN_FLAG_NAMES, parseArgs } from "../../args.js";
import { toRuntimeConfig } from "../../cli-config.js";
import { createRuntime, loadRuntimeBase } from "../../core/create-runtime.js";
import { renderFindings } from "../../core/review/review-findings.js";
import type { RuntimeConfig } from "../../core/runtime-config.js";
import type { CommandIo } from "../command-io.js";

export const reviewUsage = `Usage:
  gyre review [--uncommitted] [gyre flags]    review the working tree's changes against HEAD (untracked files too)
  gyre review --base <ref> [gyre flags]       review the branch: merge-base(<ref>, HEAD)..HEAD

A read-only subagent (read, grep, find, ls, and bash in plan mode's read-only sandbox) reads the
diff and the code around it and reports findings: file:line, severity and a suggested fix.
Nothing is changed and no session is saved.

Options:
  --base <ref>      the branch, tag or commit to review against (its merge base with HEAD)
  --uncommitted     the working tree against HEAD, untracked files included (the default)
  --focus <text>    what to look at especially
  --json            print the findings as one JSON object
  -p, --print       accepted for symmetry with gyre -p; the findings are always printed

The gyre flags (--provider, --model, --thinking, --sandbox, --trust…) pick the reviewer's model
and settings as for a run. Exit code 0 when the review finished (with or without findings),
1 when it failed, 2 for a bad command line.
`;

type ReviewFlags = { base?: string; uncommitted: boolean; focus?: string; json: boolean; rest: string[] };

/** Takes the review's own flags out of `argv`; the rest are gyre flags. */
function splitFlags(argv: string[]): { ok: true; value: ReviewFlags } | { ok: false; error: string } {
  const flags: ReviewFlags = { uncommitted: false, json: false, rest: [] };
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] as string;
    const [name, inline] = word.startsWith("--") && word.includes("=") ? word.split(/=(.*)/s, 2) : [word, undefined];
    if (name === "--base" || name === "--focus") {
      const value = inline ?? argv[++index];
      if (value === undefined || value === "" || (inline === undefined && value.startsWith("-")))
        return { ok: false, error: `gyre review: ${name} needs a value; see gyre review --help.` };
      if (name === "--base") flags.base = value;
      else flags.focus = value;
    } else if (word === "--uncommitted") flags.uncommitted = true;
    else if (word === "--json") flags.json = true;
    else flags.rest.push(word);
  }
  if (flags.base !== undefined && flags.uncommitted)
    return { ok: false, error: "gyre review takes --base <ref> or --uncommitted, not both; see gyre review --help." };
  return { ok: true, value: flags };
}

export async function runReviewCommand(argv: string[], io: CommandIo): Promise<number> {
  const split = splitFlags(argv);
  if (!split.ok) return usageError(io, split.error);
  const parsed = parseArgs(split.value.rest);
  if (!parsed.ok) return usageError(io, `gyre review: ${parsed.error}`);
  const flags = parsed.value;
  if (flags.prompt.length > 0 || flags.fileArguments.length > 0)
    return usageError(
      io,
      `gyre review takes no prompt (got "${[...flags.prompt, ...flags.fileArguments].join(" ")}"); use --focus <text>.`,
    );
  const config: RuntimeConfig = { ...toRuntimeConfig(flags), mode: "print", session: { kind: "memory" } };
  const runtimeIo = { cwd: io.cwd, env: io.env, reservedFlags: BUILT_IN_FLAG_NAMES };
  const runtime = await createRuntime(config, await loadRuntimeBase(config, runtimeIo), runtimeIo);
  const { session } = runtime;
  for (const notice of runtime.notices) if (notice.level === "problem") io.stderr.write(`gyre: ${notice.text}\n`);
  const stop = () => void session.submit({ type: "abort" });
  process.once("SIGINT", stop);
  try {
    const { base, uncommitted, focus } = split.value;
    io.stderr.write("gyre: reviewing…\n");
    const result = await session.submit({
      type: "review",
      ...(base !== undefined ? { base } : {}),
      ...(uncommitted ? { uncommitted } : {}),
      ...(focus !== undefined ? { focus } : {}),
    });
    if (split.value.json) io.stdout.write(`${JSON.stringify(result)}\n`);
    else io.stdout.write(`Review of ${result.target}\n\n${renderFindings(result)}\n`);
    if (result.reason === "stop" || result.reason === "budget") return 0;
    io.stderr.write(`gyre: the review did not finish (${result.errorMessage ?? result.reason}).\n`);
    return 1;
  } catch (error) {
    io.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 1;
  } finally {
    process.removeListener("SIGINT", stop);
    await session.dispose();
  }
}

function usageError(io: CommandIo, message: string): number {
  io.stderr.write(`gyre: ${message}\n`);
  return 2;
}
