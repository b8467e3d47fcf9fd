/** The grep tool: ripgrep over the workspace, respecting .gitignore, with capped output. */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { rgPath as bundledRgPath } from "@vscode/ripgrep";
import type { ReadDenyFilter } from "../permissions/read-deny.js";
import { hasRawBytes } from "./file-names.js";
import { isNameGlob } from "./glob-match.js";
import { COMMON_RG_ARGS, listFiles } from "./list-files.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { runRipgrep } from "./run-ripgrep.js";
import { DENIED_NOTICE, displayResultPath, resolveSearchTarget, resultPath } from "./search-target.js";
import type { ToolFileSystem } from "./tool-fs.js";
import { cutLine, DEFAULT_MAX_BYTES, formatSize, MAX_LINE_CHARS, truncateHead } from "./truncate.js";

const grepParameters = Type.Object({
  pattern: Type.String({ description: "Regular expression (Rust regex syntax) to search for; see literal." }),
  path: Type.Optional(Type.String({ description: "File or directory to search. Default: the workspace." })),
  glob: Type.Optional(
    Type.String({ description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.py'." }),
  ),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search." })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regex." })),
  context: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: "Lines of context around each match." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of matches (default 100)." })),
});

export type GrepToolDetails = {
  matchCount: number;
  limitReached: boolean;
  linesCut: boolean;
  outputTruncated: boolean;
};

export type GrepToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  /** The rg binary. Default: the one @vscode/ripgrep ships. */
  rgPath?: string;
  defaultLimit?: number;
  /** Files the `read(...)` deny rules refuse (see `permissions/read-deny.ts`): left out of the results. */
  readDenied?: () => Promise<ReadDenyFilter | undefined>;
};

/** The lines under a grep result that say what was left out and how to get it. */
function searchNotices(found: {
  run: { stopped: boolean; exitCode: number | null; stderr: string };
  limit: number;
  truncated: boolean;
  linesCut: boolean;
  files: { kind: string; unsearchable?: number };
  hidden: number;
}): string[] {
  const { run, limit, linesCut, files, hidden } = found;
  const notices: string[] = [];
  if (run.stopped)
    notices.push(`[stopped at ${limit} matches; pass a larger limit or narrow the pattern, path or glob]`);
  if (found.truncated) notices.push(`[output cut at ${formatSize(DEFAULT_MAX_BYTES)}; narrow the search]`);
  if (linesCut) notices.push(`[lines longer than ${MAX_LINE_CHARS} characters were cut; use read to see them whole]`);
  if (files.kind === "list" && (files.unsearchable ?? 0) > 0)
    notices.push(
      `[${files.unsearchable} matching file(s) with non-UTF-8 names were not searched; grep each by its path or drop the glob]`,
    );
  if (hidden > 0) notices.push(`[${DENIED_NOTICE}]`);
  if (run.exitCode === 2) notices.push(`[some files could not be searched: ${run.stderr.split("\n")[0]}]`);
  return notices;
}

/** rg's flags for a search: records as `path\0line:text`, long lines previewed, the call's options. */
function ripgrepFlags(args: { ignoreCase?: boolean; literal?: boolean; context?: number }): string[] {
  const flags = ["--no-heading", "--with-filename", "--line-number", "--null", "--color=never", ...COMMON_RG_ARGS];
  flags.push("--max-columns=2000", "--max-columns-preview");
  if (args.ignoreCase === true) flags.push("--ignore-case");
  if (args.literal === true) flags.push("--fixed-strings");
  if (args.context !== undefined && args.context > 0) flags.push("--context", String(args.context));
  return flags;
}

/** Creates the grep tool. The pattern and globs are passed to rg as data, never as options. */
export function createGrepTool(options: GrepToolOptions): AgentTool<typeof grepParameters, GrepToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const rg = options.rgPath ?? bundledRgPath;
  const defaultLimit = options.defaultLimit ?? 100;

  return {
    name: "grep",
    readOnly: true,
    label: "Grep",
    description:
      "Search file contents with ripgrep (respects .gitignore; hidden files included, .git excluded). " +
      "Output lines look like path:line: text for matches and path-line- text for context. " +
      `Returns at most ${defaultLimit} matches unless you pass limit; long lines are cut at ${MAX_LINE_CHARS} characters.`,
    parameters: grepParameters,
    async execute(args, { signal }) {
      const target = await resolveSearchTarget(policy, fs, args.path);
      const denied = await options.readDenied?.();
      let hidden = 0;
      const limit = args.limit ?? defaultLimit;
      const rgArgs = ripgrepFlags(args);
      const files = await selectFiles(args.glob, target.argument, { rgPath: rg, cwd: target.cwd, signal });
      if (files.kind === "type") rgArgs.push("--type-add", `gyre:${files.glob}`, "--type", "gyre");
      rgArgs.push("-e", args.pattern, "--", ...(files.kind === "list" ? files.paths : [target.argument]));

      const out: string[] = [];
      // With --null every record starts "path\0"; a line without NUL is the start of a path holding a newline.
      let pathStart = "";
      let matchCount = 0;
      let linesCut = false;
      const run = await runSearch(files, {
        rgPath: rg,
        args: rgArgs,
        cwd: target.cwd,
        ...(target.inheritFile !== undefined ? { inheritFile: target.inheritFile } : {}),
        signal,
        onLine(line) {
          if (line === "--") {
            out.push("--");
            return true;
          }
          const nul = line.indexOf("\0");
          if (nul === -1) {
            pathStart += `${line}\n`;
            return true;
          }
          const path = pathStart + line.slice(0, nul);
          pathStart = "";
          const rest = line.slice(nul + 1);
          const numbered = /^(\d+)([:-])/.exec(rest);
          if (numbered === null) return true;
          if (denied?.(resultPath(target, path))) {
            hidden++;
            return true;
          }
          const isMatch = numbered[2] === ":";
          if (isMatch && matchCount === limit) return false;
          if (isMatch) matchCount++;
          // Content bytes that are not UTF-8 show as U+FFFD, as a text decoder would show them.
          const cut = cutLine(rest.slice(numbered[0].length).replace(RAW_BYTES, "\ufffd"));
          linesCut ||= cut.cut;
          const separator = numbered[2] as string;
          out.push(`${displayResultPath(target, path)}${separator}${numbered[1]}${separator} ${cut.text}`);
          return true;
        },
      });
      if (run.exitCode === 2 && matchCount === 0) throw new Error(ripgrepFailure(run.stderr));
      if (matchCount === 0) {
        const note = hidden > 0 ? ` ${DENIED_NOTICE}` : "";
        return {
          content: [
            { type: "text", text: `No matches for ${JSON.stringify(args.pattern)} in ${target.displayPath}.${note}` },
          ],
          details: { matchCount: 0, limitReached: false, linesCut: false, outputTruncated: false },
        };
      }
      while (out.at(-1) === "--") out.pop();
      const truncation = truncateHead(out.join("\n"), {
        maxLines: Number.POSITIVE_INFINITY,
        maxBytes: DEFAULT_MAX_BYTES,
      });
      const notices = searchNotices({ run, limit, truncated: truncation.truncated, linesCut, files, hidden });
      const text = notices.length > 0 ? `${truncation.text}\n\n${notices.join("\n")}` : truncation.text;
      return {
        content: [{ type: "text", text }],
        details: { matchCount, limitReached: run.stopped, linesCut, outputTruncated: truncation.truncated },
      };
    },
  };
}

const RAW_BYTES = /[\udc80-\udcff]/gu;

/** A path glob matching more files than this is refused: they would not fit on rg's command line. */
const MAX_LISTED_FILES = 20_000;

type FileSelection =
  | { kind: "all" }
  | { kind: "type"; glob: string }
  | { kind: "list"; paths: string[]; unsearchable: number }
  | { kind: "none" };

/**
 * How the glob restricts the search while .gitignore still applies (rg's --glob would override
 * it): a file-name glob becomes an rg file type; a path glob filters the `rg --files` list.
 */
async function selectFiles(
  glob: string | undefined,
  argument: string,
  options: { rgPath: string; cwd: string; signal: AbortSignal },
): Promise<FileSelection> {
  if (glob === undefined || argument !== ".") return { kind: "all" };
  const name = glob.startsWith("**/") ? glob.slice(3) : glob;
  // "name:include:…" is type-add syntax, so such a glob cannot go through a type.
  if (isNameGlob(glob) && !name.startsWith("include:")) return { kind: "type", glob: name };
  const listed = await listFiles({ ...options, glob, max: MAX_LISTED_FILES });
  if (listed.stopped)
    throw new Error(
      `The glob ${JSON.stringify(glob)} matches over ${MAX_LISTED_FILES} files. Narrow it or pass a path.`,
    );
  // A name that is not UTF-8 cannot go on rg's command line; such files are counted, not searched.
  const paths = listed.paths.filter((path) => !hasRawBytes(path));
  const unsearchable = listed.paths.length - paths.length;
  return paths.length === 0 ? { kind: "none" } : { kind: "list", paths, unsearchable };
}

function runSearch(files: FileSelection, options: Parameters<typeof runRipgrep>[0]) {
  if (files.kind === "none") return Promise.resolve({ exitCode: 1, stderr: "", stopped: false });
  return runRipgrep(options);
}

function ripgrepFailure(stderr: string): string {
  if (/regex parse error|error parsing|unclosed|unrecognized escape/i.test(stderr)) {
    return `The pattern is not a valid regular expression: ${stderr}\nFix it, or pass literal=true to search for the text as-is.`;
  }
  return `The search failed: ${stderr || "ripgrep exited with an error"}. Check the path and glob.`;
}
