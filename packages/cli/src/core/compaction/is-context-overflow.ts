/**
 * Recognises a provider's "the prompt is longer than the context window" error, so the caller
 * can compact once and retry instead of failing the run.
 */
import type { AssistantMessage } from "@gyre/ai";

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
