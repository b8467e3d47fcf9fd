import { shortenToolCallId } from "../../tool-call-ids.js";
import { transformMessages } from "../../transform-messages.js";
import { stringifyRequest } from "../../transport/request-json.js";
import type { AssistantMessage, ImageContent, Message, Model, TextContent } from "../../types.js";
import { convertToolResultText } from "../openai-shared.js";
import type {
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesReasoningItem,
  ResponsesWebSearchCallItem,
} from "./wire.js";

/**
 * Converts a gyre history into Responses API input items for `model`. The history is first made
 * valid (`transformMessages`; call ids cut to 64 characters). Same-model reasoning items are sent
 * back (with their `encrypted_content`) only in front of the function calls they led to — the
 * API rejects a function call item without its reasoning item and vice versa — and function-call
 * item ids (`fc_…`) only for the model that made them; `web_search_call` items go back verbatim. Tool results become
 * `function_call_output` items; their images follow as one user message.
 */
export function convertResponsesMessages(model: Model, messages: Message[]): ResponsesInputItem[] {
  const history = transformMessages(messages, model, { normalizeToolCallId: (id) => shortenToolCallId(id, 64) });
  const items: ResponsesInputItem[] = [];
  let pendingImages: ImageContent[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    items.push({
      role: "user",
      content: [
        { type: "input_text", text: "Images returned by the tool calls above:" },
        ...pendingImages.map((image) => toImagePart(image)),
      ],
    });
    pendingImages = [];
  };
  for (const message of history) {
    if (message.role !== "toolResult") flushImages();
    switch (message.role) {
      case "user": {
        const content: ResponsesInputContent[] =
          typeof message.content === "string"
            ? [{ type: "input_text", text: message.content }]
            : message.content.map((block) => convertUserBlock(block, model));
        if (content.length > 0) items.push({ role: "user", content });
        break;
      }
      case "assistant":
        items.push(...convertAssistant(message, model));
        break;
      case "toolResult":
        items.push({
          type: "function_call_output",
          call_id: message.toolCallId,
          output: convertToolResultText(message),
        });
        if (model.input.includes("image")) {
          for (const block of message.content) if (block.type === "image") pendingImages.push(block);
        }
        break;
      default: {
        const never: never = message;
        throw new Error(`unknown message role ${JSON.stringify(never)}`);
      }
    }
  }
  flushImages();
  return items;
}

function convertUserBlock(block: TextContent | ImageContent, model: Model): ResponsesInputContent {
  if (block.type === "text") return { type: "input_text", text: block.text };
  if (model.input.includes("image")) return toImagePart(block);
  return { type: "input_text", text: "(an image was attached, but this model does not accept images)" };
}

function toImagePart(image: ImageContent): ResponsesInputContent {
  return { type: "input_image", image_url: `data:${image.mimeType};base64,${image.data}`, detail: "auto" };
}

function convertAssistant(message: AssistantMessage, model: Model): ResponsesInputItem[] {
  const sameModel = message.provider === model.provider && message.model === model.id;
  // A web search call item needs its reasoning item as much as a function call does.
  const hasToolCalls = message.content.some((block) => block.type === "toolCall" || block.type === "serverToolCall");
  const items: ResponsesInputItem[] = [];
  let text = "";
  const flushText = () => {
    if (text) items.push({ role: "assistant", content: text });
    text = "";
  };
  for (const block of message.content) {
    if (block.type === "text") {
      text += block.text;
    } else if (block.type === "thinking") {
      const reasoning = sameModel && hasToolCalls ? parseReasoningSignature(block.signature) : undefined;
      if (reasoning) {
        flushText();
        items.push(reasoning);
      }
    } else if (block.type === "serverToolCall") {
      // `transformMessages` left only items this API made: the `web_search_call` goes back as it came.
      flushText();
      if (block.raw) items.push(block.raw as ResponsesWebSearchCallItem);
    } else if (block.type === "serverToolResult") {
      // Part of its call's item: nothing of its own to send.
    } else {
      flushText();
      const itemId = sameModel && block.signature?.startsWith("fc") ? block.signature : undefined;
      items.push({
        type: "function_call",
        ...(itemId ? { id: itemId } : {}),
        call_id: block.id,
        name: block.name,
        arguments: block.rawArguments ?? stringifyRequest(block.arguments),
      });
    }
  }
  flushText();
  return items;
}

/** The reasoning item a thinking block's signature holds (see `parse-events.ts`), if it holds one. */
export function parseReasoningSignature(signature: string | undefined): ResponsesReasoningItem | undefined {
  if (!signature?.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(signature) as Partial<ResponsesReasoningItem>;
    if (parsed.type !== "reasoning" || typeof parsed.id !== "string") return undefined;
    const item: ResponsesReasoningItem = { type: "reasoning", id: parsed.id, summary: parsed.summary ?? [] };
    if (typeof parsed.encrypted_content === "string") item.encrypted_content = parsed.encrypted_content;
    return item;
  } catch {
    return undefined;
  }
}
