/**
 * MCP tool results → gyre tool results. Text, images, audio, embedded resources, resource links
 * and structured content all become something the model can read, and the text is capped like
 * built-in tool output (a 10 MB result must not fill the context window).
 */
import type { ImageContent, TextContent } from "@gyre/ai";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, utf8SafeEnd } from "../tools/truncate.js";

/** Images above this size are described instead of sent (providers reject larger ones). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** One result keeps at most this many images… */
export const MAX_RESULT_IMAGES = 20;
/** …and this many bytes of them; the rest are counted in one notice. */
export const MAX_RESULT_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Text a server wrote, without C0 and C1 control characters (escape sequences, BEL, NUL…):
 * nothing the model or a terminal needs, and a way to smuggle terminal commands. Newlines and
 * tabs stay.
 */
export function stripControlCharacters(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

/**
 * A name, URI or description a server wrote, for one line of a listing: no control characters,
 * and line breaks and tabs become spaces (a newline in a name could fake further entries).
 */
export function stripToOneLine(text: string): string {
  return stripControlCharacters(text).replace(/\s+/g, " ").trim();
}

/** What `details` of an MCP tool result holds for UIs and logs (never sent to the model). */
export type McpToolDetails = {
  server: string;
  tool: string;
  structuredContent?: Record<string, unknown>;
  /** Set when the text was cut: how many bytes the server sent in all. */
  truncatedFromBytes?: number;
};

type McpContent = CallToolResult["content"][number];

/**
 * Converts a `tools/call` result. Returns the content for the model, whether the server flagged
 * it as an error, and details. The text of all blocks together is capped at `maxBytes` bytes and
 * `maxLines` lines, with a notice naming how much was left out.
 */
export function convertToolResult(
  result: CallToolResult,
  options: { server: string; tool: string; maxBytes?: number; maxLines?: number },
): { content: (TextContent | ImageContent)[]; isError: boolean; details: McpToolDetails } {
  const blocks: (TextContent | ImageContent)[] = [];
  for (const item of result.content ?? []) blocks.push(...convertBlock(item));
  capImages(blocks);
  for (const [index, block] of blocks.entries())
    if (block.type === "text") blocks[index] = { type: "text", text: stripControlCharacters(block.text) };
  const structured = result.structuredContent;
  if (structured && !blocks.some((block) => block.type === "text")) {
    blocks.push({ type: "text", text: JSON.stringify(structured, null, 2) });
  }
  if (blocks.length === 0)
    blocks.push({ type: "text", text: result.isError ? "The tool failed without saying why." : "(no output)" });
  const capped = capText(blocks, options.maxBytes ?? DEFAULT_MAX_BYTES, options.maxLines ?? DEFAULT_MAX_LINES);
  return {
    content: capped.blocks,
    isError: result.isError === true,
    details: {
      server: options.server,
      tool: options.tool,
      ...(structured ? { structuredContent: structured } : {}),
      ...(capped.totalBytes !== undefined ? { truncatedFromBytes: capped.totalBytes } : {}),
    },
  };
}

function convertBlock(item: McpContent): (TextContent | ImageContent)[] {
  switch (item.type) {
    case "text":
      return [{ type: "text", text: item.text }];
    case "image":
      return [convertImage(item.data, item.mimeType, "image")];
    case "audio":
      return [{ type: "text", text: `[audio ${item.mimeType}, ${formatSize(base64Bytes(item.data))}; not shown]` }];
    case "resource": {
      const resource = item.resource;
      const mime = resource.mimeType ? ` (${resource.mimeType})` : "";
      if ("text" in resource && typeof resource.text === "string") {
        return [{ type: "text", text: `Resource ${resource.uri}${mime}:\n${resource.text}` }];
      }
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      if (resource.mimeType?.startsWith("image/"))
        return [convertImage(blob, resource.mimeType, `resource ${resource.uri}`)];
      return [
        {
          type: "text",
          text: `[resource ${resource.uri}${mime}: ${formatSize(base64Bytes(blob))} of binary data; not shown]`,
        },
      ];
    }
    case "resource_link": {
      const about = [item.mimeType, item.description].filter(Boolean).join("; ");
      return [
        {
          type: "text",
          text: `Resource link: ${item.name} <${item.uri}>${about ? ` (${about})` : ""}. Read it with mcp_read_resource.`,
        },
      ];
    }
    default: {
      const unknown = item as { type?: unknown };
      return [{ type: "text", text: `[content of type ${String(unknown.type)} not shown]` }];
    }
  }
}

function convertImage(data: string, mimeType: string, what: string): TextContent | ImageContent {
  const size = base64Bytes(data);
  if (size > MAX_IMAGE_BYTES) {
    return {
      type: "text",
      text: `[${what} ${mimeType}, ${formatSize(size)}: above the ${formatSize(MAX_IMAGE_BYTES)} image limit; not shown]`,
    };
  }
  return { type: "image", data, mimeType };
}

/** Keeps the first images within the count and byte limits; the others become one notice after the last kept block. */
function capImages(blocks: (TextContent | ImageContent)[]): void {
  let count = 0;
  let bytes = 0;
  let dropped = 0;
  let droppedBytes = 0;
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index];
    if (block?.type !== "image") continue;
    const size = base64Bytes(block.data);
    if (count < MAX_RESULT_IMAGES && bytes + size <= MAX_RESULT_IMAGE_BYTES) {
      count += 1;
      bytes += size;
      continue;
    }
    dropped += 1;
    droppedBytes += size;
    blocks.splice(index--, 1);
  }
  if (dropped > 0)
    blocks.push({
      type: "text",
      text: `[${dropped} more image${dropped === 1 ? "" : "s"} (${formatSize(droppedBytes)}) not shown: one result keeps at most ${MAX_RESULT_IMAGES} images and ${formatSize(MAX_RESULT_IMAGE_BYTES)} of them]`,
    });
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

/** Keeps text blocks within one shared byte and line budget; what does not fit is replaced by one notice. */
function capText(
  blocks: (TextContent | ImageContent)[],
  maxBytes: number,
  maxLines: number,
): { blocks: (TextContent | ImageContent)[]; totalBytes?: number } {
  const totalBytes = blocks.reduce(
    (sum, block) => sum + (block.type === "text" ? Buffer.byteLength(block.text) : 0),
    0,
  );
  const totalLines = blocks.reduce(
    (sum, block) => sum + (block.type === "text" ? block.text.split("\n").length : 0),
    0,
  );
  if (totalBytes <= maxBytes && totalLines <= maxLines) return { blocks };
  let bytesLeft = maxBytes;
  let linesLeft = maxLines;
  const kept: (TextContent | ImageContent)[] = [];
  for (const block of blocks) {
    if (block.type === "image") {
      kept.push(block);
      continue;
    }
    if (bytesLeft <= 0 || linesLeft <= 0) break;
    const cut = cutText(block.text, bytesLeft, linesLeft);
    kept.push({ type: "text", text: cut });
    bytesLeft -= Buffer.byteLength(cut) + 1;
    linesLeft -= cut.split("\n").length;
  }
  kept.push({
    type: "text",
    text: `[Output truncated: the tool returned ${formatSize(totalBytes)} in ${totalLines} lines; only the first ${formatSize(maxBytes)} or ${maxLines} lines are shown. Ask the tool for less (a narrower query, a page or a range) if you need the rest.]`,
  });
  return { blocks: kept, totalBytes };
}

/** The head of `text` in whole lines within both limits, or, when its first line alone is too long, its first bytes. */
function cutText(text: string, maxBytes: number, maxLines: number): string {
  const head = truncateHead(text, { maxBytes, maxLines });
  if (head.keptLines > 0 || !text) return head.text;
  const bytes = Buffer.from(text.slice(0, maxBytes), "utf8");
  return bytes.subarray(0, utf8SafeEnd(bytes, maxBytes)).toString("utf8");
}
