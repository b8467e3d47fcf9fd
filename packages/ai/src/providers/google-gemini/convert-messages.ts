import { convertServerToolBlockToText } from "../../server-tool-text.js";
import { transformMessages } from "../../transform-messages.js";
import type { AssistantMessage, Context, ImageContent, Model, TextContent, ToolResultMessage } from "../../types.js";
import type { GeminiContent, GeminiFunctionDeclaration, GeminiPart } from "./wire.js";

/** Ids gyre makes up for Gemini calls that came without one; never sent back to Google. */
export const generatedToolCallIdPrefix = "gemini_call_";

/**
 * Google's documented placeholder for a function call that has no thought signature of its own
 * (e.g. one made by another model); Gemini 3 rejects unsigned calls of the current turn otherwise.
 */
const skipSignatureValidator = "skip_thought_signature_validator";

/** A text block may carry a Gemini thought signature at run time (see `stream-reader.ts`). */

/**
 * Converts a gyre history to Gemini `contents`: roles `user`/`model`, adjacent same-role turns
 * merged (so a batch of tool results becomes one user turn of `functionResponse` parts), thought
 * signatures echoed on the parts that carried them — but only to the model that made them.
 * Images in tool results follow their `functionResponse` as `inlineData` parts.
 */
export function convertGeminiContents(context: Context, model: Model): GeminiContent[] {
  const contents: GeminiContent[] = [];
  const push = (role: GeminiContent["role"], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of transformMessages(context.messages, model)) {
    switch (message.role) {
      case "user":
        push(
          "user",
          convertMedia(
            typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
            model,
          ),
        );
        break;
      case "assistant":
        push("model", convertAssistant(message, model));
        break;
      case "toolResult":
        push("user", convertToolResult(message, model));
        break;
      default: {
        const never: never = message;
        throw new Error(`unknown message role ${JSON.stringify(never)}`);
      }
    }
  }
  return contents;
}

/** Converts tools to one `functionDeclarations` entry; schemas go as `parametersJsonSchema`. */
export function convertGeminiTools(
  context: Context,
): { functionDeclarations: GeminiFunctionDeclaration[] }[] | undefined {
  if (!context.tools || context.tools.length === 0) return undefined;
  return [
    {
      functionDeclarations: context.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.parameters,
      })),
    },
  ];
}

function convertMedia(content: (TextContent | ImageContent)[], model: Model): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const block of content) {
    if (block.type === "text") {
      if (block.text !== "") parts.push({ text: block.text });
    } else if (model.input.includes("image")) {
      parts.push({ inlineData: { mimeType: block.mimeType, data: block.data } });
    } else {
      parts.push({ text: "(image omitted: this model does not accept images)" });
    }
  }
  return parts;
}

function convertAssistant(message: AssistantMessage, model: Model): GeminiPart[] {
  // Signatures are only meaningful to the model that produced them.
  const sameModel = message.provider === model.provider && message.model === model.id;
  const signed = (part: GeminiPart, signature: string | undefined): GeminiPart =>
    sameModel && signature ? { ...part, thoughtSignature: signature } : part;
  const parts: GeminiPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      const signature = block.signature;
      if (block.text !== "" || (sameModel && signature)) parts.push(signed({ text: block.text }, signature));
    } else if (block.type === "thinking") {
      if (block.thinking !== "" || (sameModel && block.signature)) {
        parts.push(signed({ text: block.thinking, thought: true }, block.signature));
      }
    } else if (block.type === "serverToolCall" || block.type === "serverToolResult") {
      // Grounding is not part of Gemini's history format; what was searched goes back as text.
      parts.push({ text: convertServerToolBlockToText(block) });
    } else {
      const call = {
        name: block.name,
        args: block.arguments,
        ...(block.id.startsWith(generatedToolCallIdPrefix) ? {} : { id: block.id }),
      };
      const signature = sameModel ? block.signature : undefined;
      const needsPlaceholder = !signature && /gemini-3/.test(model.id);
      parts.push({
        functionCall: call,
        ...(signature || needsPlaceholder ? { thoughtSignature: signature ?? skipSignatureValidator } : {}),
      });
    }
  }
  return parts;
}

function convertToolResult(message: ToolResultMessage, model: Model): GeminiPart[] {
  const text = message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  const images = message.content.filter((block): block is ImageContent => block.type === "image");
  const response: GeminiPart = {
    functionResponse: {
      name: message.toolName,
      ...(message.toolCallId.startsWith(generatedToolCallIdPrefix) ? {} : { id: message.toolCallId }),
      response: message.isError ? { error: text } : { output: text },
    },
  };
  return [response, ...convertMedia(images, model)];
}
