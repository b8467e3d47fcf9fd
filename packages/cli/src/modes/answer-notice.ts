/**
 * What a run that "succeeded" may still have failed to deliver: an answer cut at the output
 * limit, an empty answer, or one with only reasoning. Every mode reports it its own way (stderr
 * in print mode, a line in JSON mode, a notice in the TUI) instead of ending quietly.
 */
import type { AgentMessage } from "@gyre/agent";

/** A sentence about the last answer's problem, or undefined when it delivered text normally. */
export function describeAnswerProblem(messages: readonly AgentMessage[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return undefined;
  const text = last.content.some((block) => block.type === "text" && block.text.trim() !== "");
  const thinking = last.content.some((block) => block.type === "thinking" && block.thinking.trim() !== "");
  if (last.stopReason === "length") {
    return text
      ? "The answer was cut off at the model's output limit (stop reason: length); raise the output limit or ask for a shorter answer."
      : "The model hit its output limit (stop reason: length) before writing any answer text.";
  }
  if (last.stopReason !== "stop" || text) return undefined;
  if (last.content.some((block) => block.type === "toolCall")) return undefined;
  return thinking
    ? "The model returned only reasoning and no answer text."
    : "The model returned an empty answer (no text).";
}
