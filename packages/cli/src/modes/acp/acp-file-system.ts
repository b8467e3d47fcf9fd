/**
 * The coding tools' file system when the editor offers its own (docs/acp.md): a text file is read
 * through `fs/read_text_file`, so the model sees what the user sees, unsaved changes included; a
 * file write or edit replaces is written through `fs/write_text_file`, so the editor's buffer
 * follows. Everything else (stat, listing, binary files, temp files) stays on disk. The tools
 * still resolve every path through gyre's path policy first: the editor only ever gets paths the
 * rules allow. When the editor fails a request, a read falls back to the disk and a write fails.
 */
import { Buffer } from "node:buffer";
import { createNodeFileSystem, type ToolFileSystem } from "../../core/tools/tool-fs.js";

export type EditorFiles = {
  read?: (path: string) => Promise<string>;
  write?: (path: string, content: string) => Promise<void>;
};

/** Bytes looked at on disk to tell a binary file (left to the disk) from a text one. */
const SNIFF = 8192;

export function createEditorFileSystem(editor: EditorFiles): ToolFileSystem {
  const disk = createNodeFileSystem();
  /** One read tool call asks for the same file several times (head, then stream): asked once. */
  const recent = new Map<string, { at: number; text: Promise<string | undefined> }>();

  const editorText = (path: string): Promise<string | undefined> => {
    const read = editor.read;
    if (!read) return Promise.resolve(undefined);
    const cached = recent.get(path);
    if (cached && Date.now() - cached.at < 1000) return cached.text;
    const text = (async () => {
      const head = await disk.readHead(path, SNIFF).catch(() => undefined);
      if (head === undefined || head.includes(0)) return undefined;
      return await read(path).catch(() => undefined);
    })();
    recent.set(path, { at: Date.now(), text });
    return text;
  };

  return {
    ...disk,
    async readFile(path, options) {
      const text = await editorText(path);
      return text === undefined ? disk.readFile(path, options) : Buffer.from(text, "utf8");
    },
    async readHead(path, length) {
      const text = await editorText(path);
      return text === undefined ? disk.readHead(path, length) : Buffer.from(text, "utf8").subarray(0, length);
    },
    async *readStream(path, options) {
      const text = await editorText(path);
      if (text === undefined) yield* disk.readStream(path, options);
      else yield Buffer.from(text, "utf8");
    },
    async rename(from, to) {
      recent.delete(to);
      const write = editor.write;
      if (!write) return disk.rename(from, to);
      const data = Buffer.from(await disk.readFile(from));
      const text = data.toString("utf8");
      // Not text the editor can hold as it is: it stays a file on disk.
      if (data.includes(0) || !Buffer.from(text, "utf8").equals(data)) return disk.rename(from, to);
      await write(to, text);
      await disk.remove(from);
    },
    async writeFile(path, data, options) {
      recent.delete(path);
      return disk.writeFile(path, data, options);
    },
  };
}
