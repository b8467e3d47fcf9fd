import { sanitizeToolCallId } from "../../tool-call-ids.js";
import { transformMessages } from "../../transform-messages.js";
import type { AssistantMessage, Context, ImageContent, Model, TextContent, ToolResultMessage } from "../../types.js";
import type {
  AnthropicAssistantBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicServerToolBlock,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicUserBlock,
  AnthropicWebSearchCitation,
} from "./wire.js";

/** Anthropic accepts tool-use ids matching `^[a-zA-Z0-9_-]+$`, at most 64 characters. */
export function normalizeAnthropicToolCallId(id: string): string {
  const cleaned = sanitizeToolCallId(id, 64);
  return cleaned === "" ? "toolu_empty" : cleaned;
}

/**
 * Converts a gyre history to Anthropic `messages`: strict user/assistant alternation (adjacent
 * same-role turns are merged, so consecutive tool results become one user message of
 * `tool_result` blocks), thinking echoed with its signature, redacted thinking as
 * `redacted_thinking`, empty text dropped (the API rejects it). The last block gets a
 * `cache_control` breakpoint so the conversation prefix is cached between turns. Server tool
 * blocks (web search) and their citations go back exactly as Anthropic sent them.
 */
export function convertAnthropicMessages(context: Context, model: Model): AnthropicMessageParam[] {
  const messages = transformMessages(context.messages, model, { normalizeToolCallId: normalizeAnthropicToolCallId });
  const result: AnthropicMessageParam[] = [];
  const pushUser = (content: AnthropicUserBlock[]) => {
    if (content.length === 0) return;
    const last = result.at(-1);
    if (last?.role === "user") last.content.push(...content);
    else result.push({ role: "user", content });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const content =
          typeof message.content === "string"
            ? convertUserContent([{ type: "text", text: message.content }], model)
            : convertUserContent(message.content, model);
        pushUser(content);
        break;
      }
      case "assistant": {
        const content = convertAssistantContent(message);
        if (content.length === 0) break;
        const last = result.at(-1);
        if (last?.role === "assistant") last.content.push(...content);
        else result.push({ role: "assistant", content });
        break;
      }
      case "toolResult":
        pushUser([convertToolResult(message, model)]);
        break;
      default: {
        const never: never = message;
        throw new Error(`unknown message role ${JSON.stringify(never)}`);
      }
    }
  }
  addCacheBreakpoint(result);
  return result;
}

/** Converts tool definitions; `input_schema` is the tool's JSON Schema as given. */
export function convertAnthropicTools(context: Context): AnthropicTool[] | undefined {
  if (!context.tools || context.tools.length === 0) return undefined;
  return context.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }));
}

function convertUserContent(content: (TextContent | ImageContent)[], model: Model): AnthropicUserBlock[] {
  const blocks: AnthropicUserBlock[] = [];
  for (const block of content) {
    const converted = convertMedia(block, model);
    if (converted) blocks.push(converted);
  }
  return blocks;
}

function convertMedia(
  block: TextContent | ImageContent,
  model: Model,
): AnthropicTextBlock | AnthropicImageBlock | null {
  if (block.type === "text") return block.text.trim() === "" ? null : { type: "text", text: block.text };
  // A model without image input would reject the request; tell it what was there instead.
  if (!model.input.includes("image"))
    return { type: "text", text: "(image omitted: this model does not accept images)" };
  return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } };
}

function convertAssistantContent(message: AssistantMessage): AnthropicAssistantBlock[] {
  const blocks: AnthropicAssistantBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text.trim() !== "") blocks.push(convertAssistantText(block));
    } else if (block.type === "serverToolCall" || block.type === "serverToolResult") {
      // `transformMessages` left only blocks Anthropic made, with their own item: sent back unchanged.
      if (block.raw) blocks.push(block.raw as AnthropicServerToolBlock);
    } else if (block.type === "thinking") {
      if (block.redacted) {
        if (block.signature) blocks.push({ type: "redacted_thinking", data: block.signature });
      } else if (block.signature) {
        blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
      } else if (block.thinking.trim() !== "") {
        // Unsigned thinking (e.g. from an interrupted stream) is rejected as thinking; keep it as text.
        blocks.push({ type: "text", text: block.thinking });
      }
    } else {
      blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
    }
  }
  return blocks;
}

/** A text block with the web search citations Anthropic gave it (only those carry an `encrypted_index`). */
function convertAssistantText(block: TextContent): AnthropicTextBlock {
  const citations: AnthropicWebSearchCitation[] = [];
  for (const citation of block.citations ?? []) {
    if (citation.signature === undefined) continue;
    citations.push({
      type: "web_search_result_location",
      url: citation.url,
      title: citation.title ?? null,
      cited_text: citation.citedText ?? "",
      encrypted_index: citation.signature,
    });
  }
  return citations.length > 0 ? { type: "text", text: block.text, citations } : { type: "text", text: block.text };
}

function convertToolResult(message: ToolResultMessage, model: Model): AnthropicUserBlock {
  const content: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const block of message.content) {
    const converted = convertMedia(block, model);
    if (converted) content.push(converted);
  }
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId,
    ...(content.length > 0 ? { content } : {}),
    ...(message.isError ? { is_error: true } : {}),
  };
}

function addCacheBreakpoint(messages: AnthropicMessageParam[]): void {
  const last = messages.at(-1);
  if (last?.role !== "user") return;
  const block = last.content.at(-1);
  if (block) block.cache_control = { type: "ephemeral" };
}
