import { transformMessages } from "../../transform-messages.js";
import type { AssistantMessage, Context, ImageContent, Model, TextContent } from "../../types.js";
import { convertToolResultText } from "../openai-shared.js";
import type { ResolvedCompat } from "./request.js";
import { normalizeCompletionsToolCallId } from "./tool-call-ids.js";
import type { ChatContentPart, ChatMessage, ChatToolCall } from "./wire.js";

/**
 * Converts a gyre context into Chat Completions messages for `model`: the history is first made
 * valid (`transformMessages`, with tool-call ids the API accepts), then the system prompt goes
 * first (`developer` role for reasoning models where supported), images become data URLs, tool
 * results become `tool` messages, and images in tool results follow as one user message after
 * the run of tool messages (the `tool` role cannot carry images).
 */
export function convertCompletionsMessages(model: Model, context: Context, compat: ResolvedCompat): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (context.systemPrompt) {
    const role = model.reasoning && compat.supportsDeveloperRole ? "developer" : "system";
    messages.push({ role, content: context.systemPrompt });
  }
  const history = transformMessages(context.messages, model, {
    normalizeToolCallId: (id) => normalizeCompletionsToolCallId(id, compat.toolCallIdFormat),
  });
  let pendingImages: ImageContent[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    messages.push({
      role: "user",
      content: [
        { type: "text", text: "Images returned by the tool calls above:" },
        ...pendingImages.map((image) => toImagePart(image)),
      ],
    });
    pendingImages = [];
  };
  for (const message of history) {
    if (message.role !== "toolResult") flushImages();
    switch (message.role) {
      case "user": {
        if (typeof message.content === "string") {
          messages.push({ role: "user", content: message.content });
        } else {
          const parts = convertUserParts(message.content, model);
          if (parts.length > 0) messages.push({ role: "user", content: parts });
        }
        break;
      }
      case "assistant": {
        const converted = convertAssistant(message, compat);
        if (converted) messages.push(converted);
        break;
      }
      case "toolResult": {
        messages.push({ role: "tool", tool_call_id: message.toolCallId, content: convertToolResultText(message) });
        if (model.input.includes("image")) {
          for (const block of message.content) if (block.type === "image") pendingImages.push(block);
        }
        break;
      }
      default: {
        const never: never = message;
        throw new Error(`unknown message role ${JSON.stringify(never)}`);
      }
    }
  }
  flushImages();
  return messages;
}

function convertUserParts(content: (TextContent | ImageContent)[], model: Model): ChatContentPart[] {
  const parts: ChatContentPart[] = [];
  for (const block of content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (model.input.includes("image")) parts.push(toImagePart(block));
    else parts.push({ type: "text", text: "(an image was attached, but this model does not accept images)" });
  }
  return parts;
}

function toImagePart(image: ImageContent): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function convertAssistant(message: AssistantMessage, compat: ResolvedCompat): ChatMessage | undefined {
  const text: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text.push(block.text);
    else if (block.type === "thinking") thinking.push(block.thinking);
    else
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: block.rawArguments ?? JSON.stringify(block.arguments) },
      });
  }
  const joined = text.join("");
  if (joined === "" && toolCalls.length === 0) return undefined;
  const converted: ChatMessage = { role: "assistant", content: joined === "" ? null : joined };
  if (toolCalls.length > 0) converted.tool_calls = toolCalls;
  // Servers that stream `reasoning_content` (llama.cpp, vLLM, DeepSeek, Z.ai) accept it back, and
  // interleaved-thinking models need it between tool calls. OpenAI itself never streams it.
  const reasoning = thinking.join("");
  if (reasoning && compat.sendsReasoningContent) converted.reasoning_content = reasoning;
  return converted;
}
