/**
 * Files attached to a prompt typed in the editor: `@path` mentions (from `@` completion or typed)
 * and file paths pasted or dragged in, which terminals quote ('/a b.png', "/a b.png") or escape
 * (/a\ b.png). Each is read by the read tool, so the same limits apply (2,000 lines or 50 KB of
 * text with its continuation notice; images up to 5 MB): text goes into the message as a
 * `<file name="…">` block, images (sniffed by their bytes) as image content.
 */
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ImageContent } from "@gyre/ai";
import { createReadTool } from "../../core/tools/read-tool.js";
import { countOf } from "./count-of.js";

/** One attached file, for the notice the user sees. */
export type Attachment = { path: string; kind: "text" | "image"; truncated: boolean; totalLines?: number };

export type AttachedPrompt = { text: string; images: ImageContent[]; attachments: Attachment[]; problems: string[] };

const mention = /(?<=^|\s)@([^\s"'`<>]+)/g;
// A quoted path, a file:// URL, or an absolute/home path whose spaces are backslash-escaped.
const pastedPath =
  /(?<=^|\s)(?:'(\/[^'\n]+|~\/[^'\n]+)'|"(\/[^"\n]+|~\/[^"\n]+)"|(file:\/\/\/\S+)|((?:\/|~\/)(?:\\.|[^\s\\])+))(?=\s|$)/g;

/** Where a `~/` path or a file:// URL points; other paths resolve against `cwd`. */
export function toAbsolute(path: string, cwd: string): string {
  if (path.startsWith("file://")) return fileURLToPath(path);
  if (path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/** Paths as a terminal pastes or drags them in (`whole` as typed, `path` unquoted), existing or not. */
export function matchPastedPaths(text: string): { whole: string; path: string }[] {
  return [...text.matchAll(pastedPath)].map(([whole, single, double, url, escaped]) => ({
    whole,
    path: single ?? double ?? url ?? (escaped ?? "").replace(/\\(.)/g, "$1"),
  }));
}

/**
 * The files `text` names that exist, in order and each once, and the text with pasted paths
 * unquoted (the model reads the plain path). Words that name no file stay as they are.
 */
export async function findAttachedPaths(text: string, cwd: string): Promise<{ text: string; paths: string[] }> {
  const paths: string[] = [];
  const add = (path: string) => {
    if (!paths.includes(path)) paths.push(path);
  };
  for (const match of text.matchAll(mention)) {
    const path = toAbsolute((match[1] ?? "").replace(/[.,;:!?)]+$/, ""), cwd);
    if (await isFile(path)) add(path);
  }
  const replacements: { from: string; to: string }[] = [];
  for (const { whole, path: raw } of matchPastedPaths(text)) {
    const path = toAbsolute(raw, cwd);
    if (!(await isFile(path))) continue;
    add(path);
    replacements.push({ from: whole, to: path });
  }
  let unquoted = text;
  for (const { from, to } of replacements) unquoted = unquoted.replace(from, to);
  return { text: unquoted, paths };
}

/**
 * Reads the files `text` names (see `findAttachedPaths`) with the read tool and returns the
 * message to send. A file the read tool refuses (too large an image, a binary file) is left
 * out and named in `problems`; the prompt still goes.
 */
export async function attachFiles(text: string, cwd: string): Promise<AttachedPrompt> {
  const found = await findAttachedPaths(text, cwd);
  const result: AttachedPrompt = { text: found.text, images: [], attachments: [], problems: [] };
  const blocks: string[] = [];
  for (const path of found.paths) {
    // The user named this file, so its folder is allowed for this one read, inside or outside the workspace.
    const read = createReadTool({ cwd, allowedPaths: [dirname(path)] });
    try {
      const output = await read.execute({ path }, { toolCallId: "attachment", signal: AbortSignal.timeout(10_000) });
      const details = output.details;
      if (details?.kind === "binary") throw new Error(`${path} is a binary file`);
      const image = output.content.find((part) => part.type === "image");
      if (image) result.images.push(image);
      else {
        const body = output.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
        blocks.push(`<file name="${path}">\n${body}\n</file>`);
      }
      result.attachments.push({
        path,
        kind: image ? "image" : "text",
        truncated: details?.truncated === true,
        ...(details?.totalLines !== undefined && { totalLines: details.totalLines }),
      });
    } catch (error) {
      result.problems.push(`${path} was not attached: ${(error as Error).message}`);
    }
  }
  if (blocks.length > 0) result.text = `${result.text}\n\n${blocks.join("\n\n")}`;
  return result;
}

/** A message's attachment blocks shortened to one line each, for the conversation on screen. */
export function collapseAttachments(text: string): string {
  return text.replace(/\n*<file name="([^"]*)">\n[\s\S]*?\n<\/file>/g, "\n[attached $1]");
}

/** The notice for one attached file: what was sent, and whether the read tool's limits cut it. */
export function describeAttachment(attachment: Attachment): string {
  if (attachment.kind === "image") return `Attached image ${attachment.path}.`;
  const lines = attachment.totalLines === undefined ? "" : ` (${countOf(attachment.totalLines, "line")})`;
  const cut = attachment.truncated
    ? "; truncated to the read tool's limits (2,000 lines or 50 KB), the model is told how to read on"
    : "";
  return `Attached ${attachment.path}${lines}${cut}.`;
}
