/**
 * Recognises a provider's "the prompt is longer than the context window" error, so the caller
 * can compact once and retry instead of failing the run. The wordings belong to the providers,
 * so their list lives here, beside the code that turns their answers into messages.
 */
import type { AssistantMessage } from "./types.js";

/** Known overflow messages, lower-cased matching. Sources noted for when they change. */
const overflowPatterns: RegExp[] = [
  /context_length_exceeded/, // OpenAI error code
  /maximum context length/, // OpenAI, vLLM, OpenRouter, Groq: "This model's maximum context length is N tokens"
  /prompt is too long/, // Anthropic: "prompt is too long: N tokens > M maximum"
  /input is too long/, // Anthropic (older) and Bedrock
  /exceeds the maximum number of tokens/, // Google: "The input token count (N) exceeds the maximum number of tokens allowed"
  /input token count.*exceeds/, // Google
  /exceeds the available context size/, // llama.cpp server
  /exceed(?:s|ed)? (?:the )?context (?:size|window|length)/, // llama.cpp, LM Studio, Ollama wording variants
  /context (?:window|length) (?:is )?exceeded/, // LM Studio, Mistral
  /too many tokens/, // generic OpenAI-compatible servers
  /prompt too long/, // Ollama: "prompt too long; exceeded max context length by N tokens"
  /exceeded max context length/, // Ollama
  /context (?:the )?overflows/, // LM Studio: "Trying to keep the first N tokens when context the overflows"
  /greater than the context length/, // LM Studio: "tokens to keep … is greater than the context length"
  /reduce the length of the messages/, // OpenAI, OpenRouter
  /requested \d+ tokens.*context/, // OpenRouter, Together
  /prompt (?:is )?(?:too large|longer than)/, // vLLM, LocalAI
  /input length .*exceeds/, // TGI ("Input validation error: inputs tokens + max_new_tokens must be <= N")
  /inputs tokens \+ max_new_tokens/, // TGI
  /prompt token count of \d+ exceeds the limit/, // GitHub Copilot: "prompt token count of N exceeds the limit of M"
  /maximum prompt length is \d+/, // xAI: "maximum prompt length is N but the request contains M tokens"
  /context window exceeds limit/, // MiniMax: "invalid params, context window exceeds limit (2013)"
  /exceeded model token limit/, // Kimi: "Your request exceeded model token limit: N"
  /longer than the model's context window/, // ours, for z.ai's finish_reason "model_context_window_exceeded"
  /api error 4(?:00|13) \(no body\)/, // ours: Cerebras and other servers answer an overflow with a bare 400/413
];

/**
 * Whether `message` failed because the context was too long: an `error` stop whose message
 * matches a known provider's wording, or (when `contextWindow` is given) a successful response
 * whose reported input already exceeds the window (servers that truncate silently).
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason === "error") {
    const text = (message.errorMessage ?? "").toLowerCase();
    return overflowPatterns.some((pattern) => pattern.test(text));
  }
  if (contextWindow !== undefined && contextWindow > 0 && message.stopReason === "stop") {
    return message.usage.input + message.usage.cacheRead > contextWindow;
  }
  return false;
}
