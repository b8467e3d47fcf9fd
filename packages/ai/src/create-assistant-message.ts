import type { AssistantMessage, Model, StopReason } from "./types.js";
import { createEmptyUsage } from "./usage.js";

/**
 * An assistant message from `model` with no content and zeroed usage, stamped now. Providers fill
 * it as the stream arrives; callers that fail before any stream use it as the final message
 * (`errorMessage` is set only when given).
 */
export function createAssistantMessage(
  model: Model,
  options: { stopReason: StopReason; errorMessage?: string },
): AssistantMessage {
  const { stopReason, errorMessage } = options;
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: createEmptyUsage(),
    stopReason,
    ...(errorMessage !== undefined ? { errorMessage } : {}),
    timestamp: Date.now(),
  };
}
