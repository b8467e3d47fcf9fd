import { freezeJson, isFrozenJson } from "../../frozen-json.js";
import { convertServerToolBlockToText } from "../../server-tool-text.js";
import { transformMessages } from "../../transform-messages.js";
import { stringifyRequest } from "../../transport/request-json.js";
import type { AssistantMessage, Context, ImageContent, Message, Model, TextContent } from "../../types.js";
import { convertToolResultText } from "../openai-shared.js";
import { normalizeCompletionsToolCallId } from "./tool-call-ids.js";
import type { ChatContentPart, ChatMessage, ChatToolCall, ResolvedCompat } from "./wire.js";

/**
 * Converts a gyre context into Chat Completions messages for `model`: the history is first made
 * valid (`transformMessages`, with tool-call ids the API accepts), then the system prompt goes
 * first (`developer` role for reasoning models where supported), images become data URLs, tool
 * results become `tool` messages, and images in tool results follow as one user message after
 * the run of tool messages (the `tool` role cannot carry images).
 *
 * Each message's conversion is remembered (see {@link convertCached}), so a long history costs
 * one pass of identity checks per call rather than a fresh conversion. The returned messages may
 * be shared between calls and are frozen.
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
  const acceptsImages = model.input.includes("image");
  const settings = `${acceptsImages}/${compat.sendsReasoningContent}`;
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
    const converted = convertCached(message, settings, acceptsImages, compat);
    if (converted) messages.push(converted);
    if (message.role === "toolResult" && acceptsImages) {
      for (const block of message.content) if (block.type === "image") pendingImages.push(block);
    }
  }
  flushImages();
  return messages;
}

/** The JSON of a message this module converted (and froze), as UTF-8; undefined for others. */
export function cachedMessageJson(message: ChatMessage): Uint8Array | undefined {
  return serialized.get(message);
}

/**
 * One message on its own: what it becomes on the wire, or undefined when it sends nothing. Every
 * field read here must also be listed by {@link readSource}, or a changed message would be
 * answered from the cache.
 */
function convertMessage(message: Message, acceptsImages: boolean, compat: ResolvedCompat): ChatMessage | undefined {
  switch (message.role) {
    case "user": {
      if (typeof message.content === "string") return { role: "user", content: message.content };
      const parts = convertUserParts(message.content, acceptsImages);
      return parts.length > 0 ? { role: "user", content: parts } : undefined;
    }
    case "assistant":
      return convertAssistant(message, compat);
    case "toolResult":
      return { role: "tool", tool_call_id: message.toolCallId, content: convertToolResultText(message) };
    default: {
      const never: never = message;
      throw new Error(`unknown message role ${JSON.stringify(never)}`);
    }
  }
}

type CacheEntry = { settings: string; source: unknown[]; converted: ChatMessage | undefined };

/** Keyed by the (transformed) message object; an entry is used only while `readSource` still matches. */
const cache = new WeakMap<Message, CacheEntry>();
const serialized = new WeakMap<ChatMessage, Uint8Array>();
const encoder = new TextEncoder();

/** Records the values `readSource` reads, or compares them with a record without allocating. */
class SourceCheck {
  private values: unknown[] = [];
  private at = 0;
  private recording = false;
  matches = true;

  /** Starts a comparison with `values`. */
  compare(values: unknown[]): void {
    this.values = values;
    this.at = 0;
    this.recording = false;
    this.matches = true;
  }

  /** Starts a new record. */
  record(): void {
    this.values = [];
    this.recording = true;
    this.matches = true;
  }

  push(value: unknown): void {
    if (this.recording) this.values.push(value);
    else if (this.values[this.at++] !== value) this.matches = false;
  }

  /** The record, or whether the comparison matched to the end. */
  finish(): unknown[] | boolean {
    return this.recording ? this.values : this.matches && this.at === this.values.length;
  }
}
/** One for every lookup: conversion is synchronous. */
const check = new SourceCheck();

/**
 * The conversion of `message` under `settings` (what of the model and compat it depends on), from the cache when the message still holds the
 * values it was converted from. A message changed in place (a field or block replaced, text
 * edited) no longer matches and is converted afresh; tool-call arguments are compared by identity
 * only when they are frozen (`freezeJson`), otherwise by their JSON.
 */
function convertCached(
  message: Message,
  settings: string,
  acceptsImages: boolean,
  compat: ResolvedCompat,
): ChatMessage | undefined {
  const entry = cache.get(message);
  if (entry && entry.settings === settings) {
    check.compare(entry.source);
    readSource(message, check);
    if (check.finish() === true) return entry.converted;
  }
  const converted = convertMessage(message, acceptsImages, compat);
  if (converted) {
    freezeJson(converted);
    serialized.set(converted, encoder.encode(stringifyRequest(converted)));
  }
  check.record();
  readSource(message, check);
  cache.set(message, { settings, source: check.finish() as unknown[], converted });
  return converted;
}

/** Appends every value of `message` that `convertMessage` reads, in a fixed order. */
function readSource(message: Message, out: SourceCheck): void {
  out.push(message.role);
  if (message.role === "toolResult") out.push(message.toolCallId);
  if (typeof message.content === "string") {
    out.push(message.content);
    return;
  }
  out.push(message.content.length);
  for (const block of message.content) {
    out.push(block.type);
    switch (block.type) {
      case "text":
        out.push(block.text);
        break;
      case "image":
        out.push(block.data);
        out.push(block.mimeType);
        break;
      case "thinking":
        out.push(block.thinking);
        break;
      case "toolCall":
        out.push(block.id);
        out.push(block.name);
        out.push(block.rawArguments);
        out.push(isFrozenJson(block.arguments) ? block.arguments : JSON.stringify(block.arguments));
        break;
      case "serverToolCall":
      case "serverToolResult":
        out.push(JSON.stringify(block));
        break;
      default: {
        // Not a known block: compared as the object itself.
        const never: never = block;
        out.push(never);
      }
    }
  }
}

function convertUserParts(content: (TextContent | ImageContent)[], acceptsImages: boolean): ChatContentPart[] {
  const parts: ChatContentPart[] = [];
  for (const block of content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (acceptsImages) parts.push(toImagePart(block));
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
    // Only reachable for a history that bypassed `transformMessages`: this API has no server tools.
    else if (block.type === "serverToolCall" || block.type === "serverToolResult")
      text.push(convertServerToolBlockToText(block));
    else
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: block.rawArguments ?? stringifyRequest(block.arguments) },
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
