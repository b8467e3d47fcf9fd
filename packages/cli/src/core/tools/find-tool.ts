/** The find tool: file names matching a glob, via `rg --files` (respects .gitignore), sorted. */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { rgPath as bundledRgPath } from "@vscode/ripgrep";
import type { ReadDenyFilter } from "../permissions/read-deny.js";
import { listFiles } from "./list-files.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { DENIED_NOTICE, displayResultPath, resolveSearchTarget, resultPath } from "./search-target.js";
import type { ToolFileSystem } from "./tool-fs.js";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead } from "./truncate.js";

const findParameters = Type.Object({
  pattern: Type.String({
    description: "Glob for file paths, relative to path: '*.ts', 'src/**/*.test.ts', '**/README*'.",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search. Default: the workspace." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of paths (default 1000)." })),
});

export type FindToolDetails = { totalFound: number; shown: number; truncated: boolean };

export type FindToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  rgPath?: string;
  defaultLimit?: number;
  /** Files the `read(...)` deny rules refuse (see `permissions/read-deny.ts`): left out of the results. */
  readDenied?: () => Promise<ReadDenyFilter | undefined>;
};

/** Past this many paths rg is stopped: the sort needs them all in memory. */
const MAX_COLLECTED = 200_000;

/**
 * Creates the find tool. The glob is matched in JS against `rg --files` output (rg's own --glob
 * would override .gitignore), so it never reaches rg's command line at all.
 */
export function createFindTool(options: FindToolOptions): AgentTool<typeof findParameters, FindToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const rg = options.rgPath ?? bundledRgPath;
  const defaultLimit = options.defaultLimit ?? 1000;

  return {
    name: "find",
    readOnly: true,
    label: "Find",
    description:
      "Find files by glob (respects .gitignore; hidden files included, .git excluded). A glob without '/' matches file " +
      `names at any depth. Returns workspace-relative paths, sorted, at most ${defaultLimit} unless you pass limit.`,
    parameters: findParameters,
    async execute(args, { signal }) {
      const target = await resolveSearchTarget(policy, fs, args.path);
      if (target.argument !== ".")
        throw new Error(`${target.displayPath} is a file, not a directory. Pass a directory as path.`);
      const limit = args.limit ?? defaultLimit;
      const run = await listFiles({ rgPath: rg, cwd: target.cwd, glob: args.pattern, max: MAX_COLLECTED, signal });
      const denied = await options.readDenied?.();
      const kept = denied ? run.paths.filter((path) => !denied(resultPath(target, path))) : run.paths;
      const hidden = run.paths.length - kept.length;
      const paths = kept.map((path) => displayResultPath(target, path));
      if (run.exitCode === 2 && paths.length === 0) {
        throw new Error(`The search failed: ${run.stderr || "ripgrep exited with an error"}. Check the glob pattern.`);
      }
      if (paths.length === 0) {
        return {
          content: [
            {
              type: "text",
              text: `No files match ${JSON.stringify(args.pattern)} in ${target.displayPath}.${hidden > 0 ? ` ${DENIED_NOTICE}` : ""}`,
            },
          ],
          details: { totalFound: 0, shown: 0, truncated: false },
        };
      }
      paths.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const shown = paths.slice(0, limit);
      const truncation = truncateHead(shown.join("\n"), {
        maxLines: Number.POSITIVE_INFINITY,
        maxBytes: DEFAULT_MAX_BYTES,
      });
      const notices: string[] = [];
      const total = run.stopped ? `at least ${paths.length}` : String(paths.length);
      if (shown.length < paths.length || run.stopped) {
        notices.push(`[${shown.length} of ${total} files shown; pass a larger limit or a narrower pattern or path]`);
      }
      if (truncation.truncated)
        notices.push(`[output cut at ${formatSize(DEFAULT_MAX_BYTES)}; narrow the pattern or path]`);
      if (hidden > 0) notices.push(`[${DENIED_NOTICE}]`);
      const text = notices.length > 0 ? `${truncation.text}\n\n${notices.join("\n")}` : truncation.text;
      return {
        content: [{ type: "text", text }],
        details: { totalFound: paths.length, shown: truncation.keptLines, truncated: notices.length > 0 },
      };
    },
  };
}
