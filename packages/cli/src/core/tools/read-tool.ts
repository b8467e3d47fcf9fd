/**
 * The read tool: a window of a text file (head-truncated with a continuation notice), images as
 * image content, binary files described rather than dumped.
 */
import type { AgentTool } from "@gyre/agent";
import type { ImageContent, TextContent } from "@gyre/ai";
import { Type } from "@sinclair/typebox";
import { detectImageType, looksBinary, notRegularFile } from "./file-kind.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { readLines } from "./read-lines.js";
import { createReadState, type ReadState } from "./read-state.js";
import type { ToolFileSystem } from "./tool-fs.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "./truncate.js";

const readParameters = Type.Object({
  path: Type.String({ description: "Path of the file to read, relative to the workspace or absolute." }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "Line number to start at (1-based)." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines to return." })),
});

export type ReadToolDetails = {
  path: string;
  kind: "text" | "empty" | "image" | "binary";
  /** First and last line shown (text only). */
  startLine?: number;
  endLine?: number;
  totalLines?: number;
  truncated: boolean;
  mimeType?: string;
  size: number;
};

export type ReadToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  /** Built from `cwd`, `allowedPaths` and `fs` unless given. */
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  /** Shared with the edit tool so it can refuse stale edits. */
  readState?: ReadState;
  maxLines?: number;
  maxBytes?: number;
  /** Images above this many bytes are refused. Default 5 MB. */
  maxImageBytes?: number;
};

/** Bytes inspected to tell images and binary files from text. */
const SNIFF_BYTES = 8192;

/** Creates the read tool. Throws (for the model) on missing files, directories and refused paths. */
export function createReadTool(options: ReadToolOptions): AgentTool<typeof readParameters, ReadToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const readState = options.readState ?? createReadState();
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;

  return {
    name: "read",
    readOnly: true,
    label: "Read",
    description:
      `Read a file. Text comes back as-is (no line numbers), at most ${maxLines} lines or ${formatSize(maxBytes)} per call; ` +
      "a notice at the end says how to continue (offset). Use offset/limit to read part of a long file. " +
      "Images (PNG, JPEG, GIF, WebP) come back as images; binary files are described, not dumped.",
    parameters: readParameters,
    async execute(args, { signal }) {
      signal.throwIfAborted();
      const resolved = await policy.resolve(args.path);
      const shown = resolved.displayPath;
      if (!resolved.exists) throw new Error(`File not found: ${shown}. Use ls or find to locate the file.`);
      const stat = await fs.stat(resolved.realPath);
      if (stat.isDirectory) throw new Error(`${shown} is a directory, not a file. Use ls to list it.`);
      if (!stat.isFile) throw new Error(notRegularFile(shown));
      const head = await fs.readHead(resolved.realPath, SNIFF_BYTES);
      const base = { path: shown, size: stat.size };

      const mimeType = detectImageType(head);
      if (mimeType !== undefined) {
        if (stat.size > maxImageBytes) {
          throw new Error(
            `${shown} is a ${formatSize(stat.size)} image, above the ${formatSize(maxImageBytes)} limit for images. ` +
              "Shrink it first with bash (e.g. `convert in.png -resize 50% out.png`) and read the smaller copy.",
          );
        }
        const data = Buffer.from(await fs.readFile(resolved.realPath, { signal })).toString("base64");
        readState.record(resolved.realPath, stat);
        const content: (TextContent | ImageContent)[] = [
          { type: "text", text: `Image ${shown} [${mimeType}, ${formatSize(stat.size)}]` },
          { type: "image", data, mimeType },
        ];
        return { content, details: { ...base, kind: "image", mimeType, truncated: false } };
      }
      if (looksBinary(head)) {
        const text = `[${shown} is a binary file (${formatSize(stat.size)}); not shown. Inspect it with bash (file, xxd, strings) if needed.]`;
        return { content: [{ type: "text", text }], details: { ...base, kind: "binary", truncated: false } };
      }
      readState.record(resolved.realPath, stat);
      if (stat.size === 0) {
        return {
          content: [{ type: "text", text: `[${shown} is empty]` }],
          details: { ...base, kind: "empty", truncated: false },
        };
      }

      const offset = args.offset ?? 1;
      const windowLines = Math.min(args.limit ?? maxLines, maxLines);
      // A file the sniff already read whole (the common small file) is not opened a second time:
      // a stream costs several more file-system round trips than the read itself.
      const chunks = head.length === stat.size ? [head] : fs.readStream(resolved.realPath, { signal });
      const result = await readLines(chunks, {
        offset,
        maxLines: windowLines,
        maxBytes,
        signal,
      });
      if (offset > result.totalLines) {
        throw new Error(
          `offset=${offset} is beyond the end of ${shown}, which has ${result.totalLines} lines. Use an offset of at most ${result.totalLines}.`,
        );
      }
      const endLine = offset + result.lines.length - 1;
      const more = endLine < result.totalLines;
      let text = result.lines.join("\n");
      if (result.longLine !== undefined) {
        const { lineNumber, bytes } = result.longLine;
        text +=
          `\n\n[line ${lineNumber} is ${formatSize(bytes)}, longer than the ${formatSize(maxBytes)} limit; only its start is shown. ` +
          `See the rest with bash: sed -n '${lineNumber}p' ${shown} | tail -c +${maxBytes + 1} | head -c ${maxBytes}` +
          (more ? `; use offset=${endLine + 1} for the following lines]` : "]");
      } else if (more) {
        const why = result.stoppedBy === "bytes" ? ` (${formatSize(maxBytes)} limit)` : "";
        text += `\n\n[lines ${offset}-${endLine} of ${result.totalLines}${why}; use offset=${endLine + 1} to continue]`;
      }
      return {
        content: [{ type: "text", text }],
        details: {
          ...base,
          kind: "text",
          startLine: offset,
          endLine,
          totalLines: result.totalLines,
          truncated: more || result.longLine !== undefined,
        },
      };
    },
  };
}
