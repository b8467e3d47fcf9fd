/**
 * The edit tool: exact-text replacements in an existing file, all-or-nothing, keeping line
 * endings, BOM and encoding. Refuses to edit a file that changed on disk since the agent last read
 * or wrote it. A file never read in this session may be edited: the exact-match rule already
 * guarantees the model quotes the current content, and forcing a read first would only cost a turn.
 */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { applyEdits } from "./apply-edits.js";
import { writeFileAtomic } from "./atomic-write.js";
import { createUnifiedDiff } from "./diff.js";
import { notRegularFile } from "./file-kind.js";
import { createFileQueue, type FileQueue } from "./file-queue.js";
import { type PathPolicy, resolveFileAccess } from "./path-policy.js";
import { createReadState, isSameVersion, type ReadState } from "./read-state.js";
import { decodeText, encodeText } from "./text-encoding.js";
import type { ToolFileSystem } from "./tool-fs.js";
import { formatSize } from "./truncate.js";

const editParameters = Type.Object({
  path: Type.String({ description: "Path of the file to edit, relative to the workspace or absolute." }),
  edits: Type.Array(
    Type.Object({
      oldText: Type.String({ description: "Exact text to replace; must occur exactly once in the file." }),
      newText: Type.String({ description: "Replacement text." }),
    }),
    { minItems: 1, description: "Replacements, each matched against the file as it was before this call." },
  ),
});

export type EditToolDetails = {
  path: string;
  /** Unified diff of the change, for UIs. */
  diff: string;
  firstChangedLine: number | undefined;
  editCount: number;
  /** Indices of edits that matched only after normalising whitespace, quotes or dashes. */
  normalisedEdits: number[];
};

export type EditToolOptions = {
  cwd: string;
  fs?: ToolFileSystem;
  pathPolicy?: PathPolicy;
  allowedPaths?: readonly string[];
  /** Shared with read and write; an entry that no longer matches the disk makes the edit stale. */
  readState?: ReadState;
  fileQueue?: FileQueue;
  /** Files above this many bytes are refused. Default 16 MB. */
  maxFileBytes?: number;
};

/** Accepts the single-edit shapes models often send (`oldText`/`newText`, `old_string`/`new_string`, edits as JSON text). */
export function prepareEditArguments(args: Record<string, unknown>): Record<string, unknown> {
  const { oldText, newText, old_string, new_string, ...rest } = args;
  let edits = rest.edits;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits);
    } catch {
      // Left as is: validation reports the bad shape to the model.
    }
  }
  const single = { oldText: oldText ?? old_string, newText: newText ?? new_string };
  if (edits === undefined && single.oldText !== undefined) edits = [single];
  return { ...rest, edits };
}

/** Creates the edit tool. */
export function createEditTool(options: EditToolOptions): AgentTool<typeof editParameters, EditToolDetails> {
  const { fs, policy } = resolveFileAccess(options);
  const readState = options.readState ?? createReadState();
  const queue = options.fileQueue ?? createFileQueue();
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;

  return {
    name: "edit",
    label: "Edit",
    description:
      "Edit a file by replacing exact text. Each edits[i].oldText must occur exactly once in the file as it is now " +
      "(include a few surrounding lines to make it unique); all edits are matched against the original file and " +
      "applied together, so they must not overlap. Keep indentation exact. Use write to create new files.",
    parameters: editParameters,
    prepareArguments: prepareEditArguments,
    async execute(args, { signal }) {
      signal.throwIfAborted();
      const resolved = await policy.resolve(args.path);
      const shown = resolved.displayPath;
      if (!resolved.exists)
        throw new Error(`File not found: ${shown}. Check the path with ls or find; use write to create a new file.`);
      return queue.run(resolved.realPath, async () => {
        signal.throwIfAborted();
        const stat = await fs.stat(resolved.realPath);
        if (stat.isDirectory) throw new Error(`${shown} is a directory. Edit a file inside it.`);
        if (!stat.isFile) throw new Error(notRegularFile(shown));
        const seen = readState.get(resolved.realPath);
        if (seen !== undefined && !isSameVersion(seen, stat)) {
          throw new Error(
            `${shown} changed on disk since you last read it (someone else modified it). ` +
              "Read it again, then redo the edit against its current content.",
          );
        }
        if (stat.size > maxFileBytes) {
          throw new Error(
            `${shown} is ${formatSize(stat.size)}, above the ${formatSize(maxFileBytes)} limit for edit. Use bash (sed) instead.`,
          );
        }
        const decoded = decodeText(await fs.readFile(resolved.realPath, { signal }), shown);
        const applied = applyEdits(decoded.text, args.edits, shown);
        if (applied.text === decoded.text) {
          throw new Error(`The edits leave ${shown} unchanged (each newText equals its oldText). Nothing was written.`);
        }
        await writeFileAtomic(fs, resolved.realPath, encodeText(applied.text, decoded.encoding), {
          mode: stat.mode,
          signal,
        });
        readState.record(resolved.realPath, await fs.stat(resolved.realPath));
        const { diff, firstChangedLine } = createUnifiedDiff(decoded.text, applied.text, shown);
        const normalisedEdits = applied.normalised.flatMap((used, index) => (used ? [index] : []));
        const count = args.edits.length;
        let text = `Applied ${count} edit${count === 1 ? "" : "s"} to ${shown}.`;
        if (normalisedEdits.length > 0) {
          text += ` (edits ${normalisedEdits.join(", ")} matched after normalising whitespace, quotes or dashes.)`;
        }
        return {
          content: [{ type: "text", text }],
          details: { path: shown, diff, firstChangedLine, editCount: count, normalisedEdits },
        };
      });
    },
  };
}
