/**
 * An ACP prompt (content blocks) as the text and images of a gyre prompt (docs/acp.md): text as
 * it is; images as images; a resource link as a mention of its URI; an embedded text resource
 * inline inside a `<context>` block naming its URI. Audio is refused (gyre does not advertise it).
 */

import type { ContentBlock } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ImageContent } from "@gyre/ai";

export type GyrePrompt = { text: string; images: ImageContent[] };

export function toGyrePrompt(blocks: readonly ContentBlock[]): GyrePrompt {
  const parts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "resource_link":
        parts.push(`[@${block.name}](${block.uri})`);
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          parts.push(`<context uri="${resource.uri}">\n${resource.text}\n</context>`);
        } else if (resource.mimeType?.startsWith("image/")) {
          images.push({ type: "image", data: resource.blob, mimeType: resource.mimeType });
        } else {
          parts.push(
            `(${resource.uri}: binary content${resource.mimeType ? ` of type ${resource.mimeType}` : ""} not included)`,
          );
        }
        break;
      }
      case "audio":
        throw RequestError.invalidParams({ type: "audio" }, "gyre takes no audio; send text or images.");
      default:
        throw RequestError.invalidParams({ block }, "unknown content block type.");
    }
  }
  const text = parts.join("\n").trim();
  if (!text && images.length === 0) throw RequestError.invalidParams(undefined, "the prompt has no content.");
  return { text, images };
}
