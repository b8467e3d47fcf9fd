/**
 * Limits every request keeps whatever the history holds (docs/tools.md, "Images"): providers
 * refuse a request with too many or too large images (Anthropic: 100 images) and duplicate tool
 * names. Applied to each request's copy only; the history itself is not changed.
 */
import type { ImageContent, Message, TextContent, Tool } from "./types.js";

/** At most this many images go out in one request (the newest are kept). */
export const MAX_REQUEST_IMAGES = 100;
/** At most this many bytes of (base64) image data go out in one request. */
export const MAX_REQUEST_IMAGE_BYTES = 20 * 1024 * 1024;

type Limits = { maxImages?: number; maxImageBytes?: number };

/**
 * Returns `messages` with the oldest images replaced by a short text once the newest ones use up
 * the count or byte limit; the same array when nothing had to go.
 */
export function capRequestImages(messages: Message[], limits: Limits = {}): Message[] {
  const maxImages = limits.maxImages ?? MAX_REQUEST_IMAGES;
  const maxBytes = limits.maxImageBytes ?? MAX_REQUEST_IMAGE_BYTES;
  let images = 0;
  let bytes = 0;
  let changed = false;
  const keep = (image: ImageContent) => {
    images += 1;
    bytes += image.data.length;
    return images <= maxImages && bytes <= maxBytes;
  };
  const notice = (): TextContent => ({
    type: "text",
    text: `[an older image was left out of this request: at most ${maxImages} images or ${Math.round(maxBytes / 1024 / 1024)} MB of images go to the model at once]`,
  });
  const result = [...messages];
  for (let index = result.length - 1; index >= 0; index--) {
    const message = result[index];
    if (!message || message.role === "assistant" || typeof message.content === "string") continue;
    const content = message.content;
    let blocks: (TextContent | ImageContent)[] | undefined;
    for (let at = content.length - 1; at >= 0; at--) {
      const block = content[at];
      if (block?.type !== "image" || keep(block)) continue;
      blocks ??= [...content];
      blocks[at] = notice();
    }
    if (blocks) {
      changed = true;
      result[index] = { ...message, content: blocks } as Message;
    }
  }
  return changed ? result : messages;
}

/** The tools with every name once (the first of a name wins), and the names that came twice. */
export function uniqueToolsByName<T extends Pick<Tool, "name">>(tools: T[]): { tools: T[]; duplicates: string[] } {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const kept: T[] = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) duplicates.push(tool.name);
    else {
      seen.add(tool.name);
      kept.push(tool);
    }
  }
  return { tools: duplicates.length > 0 ? kept : tools, duplicates };
}
