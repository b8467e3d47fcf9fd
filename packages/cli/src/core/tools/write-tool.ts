/** The write tool: creates or replaces a whole file, atomically, creating parent directories. */
import * as nodePath from "node:path";
import { type AgentTool, DEFAULT_MAX_TOOL_ARGUMENT_BYTES } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { writeFileAtomic } from "./atomic-write.js";
import { createFileQueue, type FileQueue } from "./file-queue.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { createReadState, type ReadState } from "./read-state.js";
import { errorCode, type ToolFileSystem } from "./tool-fs.js";
import { formatSize } from "./truncate.js";

const writeParameters = Type.Object({
  path: Type.String({ description: "Path of the file to write, relative to the workspace or absolute." }),
  content: Type.String({ description: "The complete new content of the file." }),
});

export type WriteToolDetails = { path: string; bytesWritten: number; created: boolean };

export type WriteToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  readState?: ReadState;
  /** Shared with the edit tool so writes to one file never interleave. */
  fileQueue?: FileQueue;
  /**
   * Content above this many bytes is refused. Default 1 MiB, the agent loop's default cap on a
   * call's arguments: larger content would be dropped by the loop before it got here.
   */
  maxBytes?: number;
};

/** Creates the write tool. Refuses oversized content, directories and paths outside the policy. */
export function createWriteTool(options: WriteToolOptions): AgentTool<typeof writeParameters, WriteToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const readState = options.readState ?? createReadState();
  const queue = options.fileQueue ?? createFileQueue();
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES;

  return {
    name: "write",
    label: "Write",
    description:
      "Write a file: creates it (and missing parent directories) or replaces its whole content. " +
      "Prefer edit for changing part of an existing file. Content is written exactly as given.",
    parameters: writeParameters,
    async execute(args, { signal }) {
      signal.throwIfAborted();
      const data = Buffer.from(args.content, "utf8");
      if (data.length > maxBytes) {
        throw new Error(
          `The content is ${formatSize(data.length)}, above the ${formatSize(maxBytes)} limit for write. ` +
            "Write the file in smaller parts (write the first part, then append with bash) or generate it with a script.",
        );
      }
      const resolved = await policy.resolve(args.path);
      return queue.run(resolved.realPath, async () => {
        signal.throwIfAborted();
        const existing = await fs.stat(resolved.realPath).catch((error: unknown) => {
          if (errorCode(error) === "ENOENT") return undefined;
          throw error;
        });
        if (existing?.isDirectory) {
          throw new Error(`${resolved.displayPath} is a directory. Write to a file path inside it instead.`);
        }
        if (existing !== undefined && !existing.isFile) {
          throw new Error(
            `${resolved.displayPath} is a FIFO, socket or device, not a regular file; write would replace it, so it is refused. ` +
              "Write to another path, or use bash if you mean to send data into it.",
          );
        }
        await fs.mkdir(nodePath.dirname(resolved.realPath), { recursive: true }).catch((error: unknown) => {
          throw new Error(
            `Cannot create the parent directory of ${resolved.displayPath} (${errorCode(error) ?? String(error)}). ` +
              "Check that no file sits where a directory is needed.",
          );
        });
        await writeFileAtomic(fs, resolved.realPath, data, { mode: existing?.mode, signal });
        readState.record(resolved.realPath, await fs.stat(resolved.realPath));
        const verb = existing === undefined ? "Created" : "Wrote";
        return {
          content: [{ type: "text", text: `${verb} ${resolved.displayPath} (${data.length} bytes).` }],
          details: { path: resolved.displayPath, bytesWritten: data.length, created: existing === undefined },
        };
      });
    },
  };
}
