import type { StopReason } from "../../types.js";

export type GeminiStop = { stopReason: StopReason; errorMessage?: string };

const explanations: Record<string, string> = {
  SAFETY: "the response was flagged by Google's safety filters",
  RECITATION: "the response would have recited copyrighted material",
  LANGUAGE: "the response was in an unsupported language",
  BLOCKLIST: "the response contained blocked terms",
  PROHIBITED_CONTENT: "the response contained prohibited content",
  SPII: "the response contained sensitive personal information",
  IMAGE_SAFETY: "a generated image was flagged by Google's safety filters",
  MALFORMED_FUNCTION_CALL: "the model produced a malformed function call",
  UNEXPECTED_TOOL_CALL: "the model called a tool that was not offered",
  TOO_MANY_TOOL_CALLS: "the model made too many tool calls in a row",
  OTHER: "Google gave no further reason",
  FINISH_REASON_UNSPECIFIED: "Google gave no reason",
};

/**
 * Maps a Gemini `finishReason`. `STOP` is `stop`, or `toolUse` when the message has tool calls;
 * `MAX_TOKENS` is `length`; every other value (known or not) is an error whose message names the
 * reason and, when sent, Google's `finishMessage`. Never throws.
 */
export function mapGeminiFinishReason(reason: string, hasToolCalls: boolean, finishMessage?: string): GeminiStop {
  if (reason === "STOP") return { stopReason: hasToolCalls ? "toolUse" : "stop" };
  if (reason === "MAX_TOKENS") return { stopReason: "length" };
  const why = explanations[reason] ?? "Google gave a reason gyre does not know";
  const detail = finishMessage ? ` (${finishMessage})` : "";
  return { stopReason: "error", errorMessage: `Gemini stopped with ${reason}: ${why}${detail}.` };
}
