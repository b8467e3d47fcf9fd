import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { ImageContent } from "@gyre/ai";

const maxFileBytes = 1024 * 1024;
const imageTypes: [Buffer, string][] = [
  [Buffer.from([0x89, 0x50, 0x4e, 0x47]), "image/png"],
  [Buffer.from([0xff, 0xd8, 0xff]), "image/jpeg"],
  [Buffer.from("GIF8"), "image/gif"],
];

function imageMimeType(bytes: Buffer): string | undefined {
  for (const [magic, mimeType] of imageTypes) if (bytes.subarray(0, magic.length).equals(magic)) return mimeType;
  if (bytes.subarray(0, 4).toString() === "RIFF" && bytes.subarray(8, 12).toString() === "WEBP") return "image/webp";
  return undefined;
}

/**
 * Inlines `@file` arguments into the first message: text files as `<file name="…">` blocks,
 * images (by magic bytes) as image content. Throws a sentence naming the file on any problem.
 */
export async function loadFileArguments(
  paths: string[],
  cwd: string,
): Promise<{ text: string; images: ImageContent[] }> {
  let text = "";
  const images: ImageContent[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    const info = await stat(absolute).catch(() => undefined);
    if (!info?.isFile()) throw new Error(`Cannot inline @${path}: no such file.`);
    if (info.size > maxFileBytes) {
      throw new Error(
        `Cannot inline @${path}: it is ${info.size} bytes, over the ${maxFileBytes}-byte limit; ask the agent to read it instead.`,
      );
    }
    const bytes = await readFile(absolute);
    const mimeType = imageMimeType(bytes);
    if (mimeType) {
      images.push({ type: "image", data: bytes.toString("base64"), mimeType });
      continue;
    }
    if (bytes.subarray(0, 8192).includes(0)) throw new Error(`Cannot inline @${path}: it is a binary file.`);
    text += `<file name="${path}">\n${bytes.toString("utf8")}\n</file>\n\n`;
  }
  return { text, images };
}

const mention = /(?:^|\s)@([^\s"'`<>]+)/g;

/**
 * The `@path` words inside prompt text (`gyre -p "explain @src/a.ts"`) that name an existing
 * file, in order, each once. Words that name nothing (`@someone`) stay plain text.
 */
export async function findFileMentions(text: string, cwd: string): Promise<string[]> {
  const found: string[] = [];
  for (const match of text.matchAll(mention)) {
    const path = (match[1] ?? "").replace(/[.,;:!?)]+$/, "");
    if (!path || found.includes(path)) continue;
    const info = await stat(resolve(cwd, path)).catch(() => undefined);
    if (info?.isFile()) found.push(path);
  }
  return found;
}
