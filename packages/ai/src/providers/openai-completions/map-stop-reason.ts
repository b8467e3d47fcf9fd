import type { StopReason } from "../../types.js";

/**
 * Maps a Chat Completions `finish_reason` (and the variants OpenAI-compatible servers send) to a
 * gyre stop reason. Never throws: an unknown value is `toolUse` when the message has tool calls,
 * else `stop`. A `stop` that nevertheless carries tool calls (some local servers) is `toolUse`,
 * because the agent must run those calls.
 */
export function mapCompletionsStopReason(raw: string, hasToolCalls: boolean): StopReason {
  const normal: StopReason = hasToolCalls ? "toolUse" : "stop";
  switch (raw) {
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "toolUse";
    case "length":
    case "max_tokens":
    case "model_length":
      return "length";
    case "content_filter":
    case "error":
    case "model_context_window_exceeded": // z.ai: the prompt did not fit, nothing was generated
      return "error";
    default:
      // "stop", "end_turn", "eos", "stop_sequence" and anything new.
      return normal;
  }
}
