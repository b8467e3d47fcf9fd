import type { StopReason } from "../../types.js";

/**
 * Maps Anthropic's `stop_reason` to gyre's. Never throws: an unknown value maps to `stop` (the
 * raw value is kept in `rawStopReason` by the caller). `pause_turn` (a server tool paused a long
 * turn) maps to `stop`: the stream sends such a turn back to continue it, and one still paused
 * after the last continuation is complete as far as gyre's loop is concerned. `refusal` maps to
 * `error` so the loop does not treat a refused answer as a normal one.
 */
export function mapAnthropicStopReason(reason: string | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "tool_use":
      return "toolUse";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "error";
    default:
      return "stop";
  }
}
