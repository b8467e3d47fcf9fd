/** The ls tool: a directory's entries, sorted, directories marked with "/", dotfiles included. */

import { join } from "node:path";
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import type { ReadDenyFilter } from "../permissions/read-deny.js";
import { showPath } from "./file-names.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { DENIED_NOTICE } from "./search-target.js";
import type { ToolFileSystem } from "./tool-fs.js";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead } from "./truncate.js";

const lsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory to list. Default: the workspace root." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of entries (default 500)." })),
});

export type LsToolDetails = { path: string; totalEntries: number; shown: number; truncated: boolean };

export type LsToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  defaultLimit?: number;
  /** Files the `read(...)` deny rules refuse (see `permissions/read-deny.ts`): left out of the results. */
  readDenied?: () => Promise<ReadDenyFilter | undefined>;
};

/** Creates the ls tool. */
export function createLsTool(options: LsToolOptions): AgentTool<typeof lsParameters, LsToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const defaultLimit = options.defaultLimit ?? 500;

  return {
    name: "ls",
    readOnly: true,
    label: "List",
    description:
      "List a directory: one entry per line, sorted, directories end with '/', hidden entries included. " +
      `At most ${defaultLimit} entries unless you pass limit. Use find to search recursively.`,
    parameters: lsParameters,
    async execute(args, { signal }) {
      signal.throwIfAborted();
      const resolved = await policy.resolve(args.path ?? ".");
      const shown = resolved.displayPath;
      if (!resolved.exists) throw new Error(`Directory not found: ${shown}. List its parent to see what exists.`);
      const stat = await fs.stat(resolved.realPath);
      if (!stat.isDirectory) throw new Error(`${shown} is a file, not a directory. Use read to see its content.`);
      const all = await fs.readdir(resolved.realPath);
      const denied = await options.readDenied?.();
      const entries = denied ? all.filter((entry) => !denied(join(resolved.realPath, entry.name))) : all;
      signal.throwIfAborted();
      const names = entries
        .sort((a, b) => {
          const folded = a.name.toLowerCase().localeCompare(b.name.toLowerCase());
          return folded !== 0 ? folded : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
        })
        .map((entry) => (entry.isDirectory ? `${showPath(entry.name)}/` : showPath(entry.name)));
      if (names.length === 0) {
        return {
          content: [{ type: "text", text: `(${shown} is empty)` }],
          details: { path: shown, totalEntries: 0, shown: 0, truncated: false },
        };
      }
      const limit = args.limit ?? defaultLimit;
      const truncation = truncateHead(names.slice(0, limit).join("\n"), {
        maxLines: Number.POSITIVE_INFINITY,
        maxBytes: DEFAULT_MAX_BYTES,
      });
      const truncated = names.length > limit || truncation.truncated;
      let text = truncation.text;
      if (entries.length < all.length) text += `\n\n[${DENIED_NOTICE}]`;
      if (truncated) {
        const why = truncation.truncated ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
        text += `\n\n[${truncation.keptLines} of ${names.length} entries shown${why}; pass limit=${names.length} to see all, or use find]`;
      }
      return {
        content: [{ type: "text", text }],
        details: { path: shown, totalEntries: names.length, shown: truncation.keptLines, truncated },
      };
    },
  };
}
