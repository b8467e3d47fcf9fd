import { registerApi } from "../api-registry.js";
import { streamAnthropicMessages } from "./anthropic-messages/stream.js";
import { streamFaux } from "./faux/stream.js";
import { streamGoogleGemini } from "./google-gemini/stream.js";
import { streamOpenAICompletions } from "./openai-completions/stream.js";
import { streamOpenAIResponses } from "./openai-responses/stream.js";

/** Registers the stream functions of the built-in wire APIs. Called once by the package entry. */
export function registerBuiltInApis(): void {
  registerApi("faux", streamFaux);
  registerApi("anthropic-messages", streamAnthropicMessages);
  registerApi("google-gemini", streamGoogleGemini);
  registerApi("openai-completions", streamOpenAICompletions);
  registerApi("openai-responses", streamOpenAIResponses);
}
