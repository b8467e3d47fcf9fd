/**
 * @gyre/ai — one streaming API over OpenAI, Anthropic, Google, OpenAI-compatible servers and a
 * scripted faux model. `stream()` returns at once and never throws or rejects afterwards.
 * The direct provider exports (`streamOpenAICompletions`, ...) behave the same way; each loads its
 * provider module on first call, so importing this entry stays cheap (start-up time).
 */
import { registerBuiltInApis } from "./providers/register-built-ins.js";

registerBuiltInApis();

export { complete, getRegisteredApis, registerApi, stream } from "./api-registry.js";
export { applyAssistantMessageEvent } from "./apply-assistant-message-event.js";
export { isContextOverflow } from "./context-overflow.js";
export { createAssistantMessage } from "./create-assistant-message.js";
export {
  createDroppedArguments,
  DROPPED_ARGUMENTS_KEY,
  type DroppedArguments,
  readArgumentsHead,
  readDroppedArguments,
  utf8Length,
} from "./dropped-arguments.js";
export { type EnsureToolResultsOptions, ensureToolResults } from "./ensure-tool-results.js";
export { describeError, GyreError, type GyreErrorCode, isAbortError } from "./errors.js";
export { AssistantMessageEventStream, type StreamFunction } from "./event-stream.js";
export {
  createModelRegistry,
  defaultModelLimits,
  defaultModelRegistry,
  findModel,
  getModel,
  getModels,
  getProvider,
  getProviders,
  type ModelRegistry,
  type ProviderInfo,
  registerProvider,
} from "./models.js";
export { parsePartialJson } from "./partial-json.js";
export {
  streamAnthropicMessages,
  streamGoogleGemini,
  streamOpenAICompletions,
  streamOpenAIResponses,
} from "./providers/register-built-ins.js";
export {
  capRequestImages,
  MAX_REQUEST_IMAGE_BYTES,
  MAX_REQUEST_IMAGES,
  uniqueToolsByName,
} from "./request-limits.js";
export { convertServerToolBlockToText, describeServerToolQuery } from "./server-tool-text.js";
export { sanitizeToolCallId } from "./tool-call-ids.js";
export { type TransformOptions, transformMessages } from "./transform-messages.js";
export type {
  Api,
  AssistantContent,
  AssistantMessage,
  AssistantMessageEvent,
  Citation,
  Context,
  ImageContent,
  KnownApi,
  Message,
  Model,
  ModelCompat,
  ModelCost,
  RetryInfo,
  RetryOptions,
  ServerToolCall,
  ServerToolResult,
  StopReason,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ThinkingLevel,
  Tool,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
  WebSearchOptions,
  WebSearchResult,
} from "./types.js";
export { isThinkingLevel, THINKING_LEVELS } from "./types.js";
export { calculateCost, createEmptyUsage } from "./usage.js";
