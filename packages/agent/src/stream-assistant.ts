import type { Model } from "@gyre/ai";
import {
  type AssistantMessage,
  type Context,
  capRequestImages,
  createAssistantMessage,
  describeError,
  type Message,
  stream,
  type Tool,
  uniqueToolsByName,
} from "@gyre/ai";
import { capToolArguments, createArgumentStreamCap, DEFAULT_MAX_TOOL_ARGUMENT_BYTES } from "./cap-tool-arguments.js";
import { loadValidateArguments } from "./load-validate-arguments.js";
import { createRepetitionGuard } from "./repetition-guard.js";
import type { AgentContext, AgentEvent, AgentLoopConfig, AgentMessage } from "./types.js";

/** What one model call needs from the running loop. */
export type StreamAssistantOptions = {
  model: Model;
  context: AgentContext;
  /** The tools as the model sees them (name, description, parameters). */
  modelTools: Tool[];
  /**
   * The history already converted (`convertMessageToLlm`, or the default), kept up to date by the
   * loop as messages are appended; set unless `convertToLlm` is given. A call copies it instead
   * of converting the whole history, unless `transformContext` returned other messages.
   */
  llmMessages?: Message[];
  config: AgentLoopConfig;
  signal: AbortSignal;
  emit: (event: AgentEvent) => Promise<void>;
};

/**
 * Makes one model call: runs `transformContext` and `convertToLlm`, resolves the API key, streams
 * the response and forwards it as `message_start`, `message_update{event}` (one per provider
 * delta; `start` and the terminal event are carried by `message_start`/`message_end`) and
 * `message_end`. Tool calls whose arguments exceed `config.maxToolArgumentBytes` are capped
 * (see `capToolCall`) in the events and in the returned message, so nothing downstream stores the
 * payload. Never throws: a failing hook or stream function becomes an assistant message with
 * stopReason "error" (or "aborted" when the signal fired).
 */
export async function streamAssistant(options: StreamAssistantOptions): Promise<AssistantMessage> {
  const { config, signal, emit } = options;
  let context: Context;
  let apiKey: string | undefined;
  try {
    context = {
      ...(options.context.systemPrompt !== undefined ? { systemPrompt: options.context.systemPrompt } : {}),
      // Every request: at most so many images, and each tool name once (providers refuse both).
      messages: capRequestImages(await prepareMessages(options)),
      ...(options.modelTools.length > 0 ? { tools: uniqueToolsByName(options.modelTools).tools } : {}),
    };
    apiKey = await config.getApiKey?.(options.model.provider);
  } catch (error) {
    return failWith(options, `Preparing the model call failed: ${describeError(error)}`);
  }
  const argumentLimit = config.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES;
  const capEvent = createArgumentStreamCap(argumentLimit);
  let started = false;
  let final: AssistantMessage | undefined;
  // A model looping on one passage is cancelled; its message then ends as an error that says so.
  const guards =
    config.repetitionGuard === false
      ? undefined
      : {
          text: createRepetitionGuard(config.repetitionGuard),
          thinking: createRepetitionGuard(config.repetitionGuard),
        };
  const stopLooping = new AbortController();
  let looped: string | undefined;
  try {
    const events = (config.streamFn ?? stream)(options.model, context, {
      // The provider stops holding a call's text past the limit, so a huge call is bounded while it streams.
      maxToolArgumentBytes: argumentLimit,
      ...config.streamOptions,
      signal: guards ? AbortSignal.any([signal, stopLooping.signal]) : signal,
      ...(apiKey !== undefined ? { apiKey } : {}),
      onRetry: (info) => void emit({ type: "retry", ...info }),
    });
    for await (const event of events) {
      if (event.type === "start") {
        started = true;
        await emit({ type: "message_start", message: event.message });
      } else if (event.type === "done" || event.type === "error") {
        final = event.message;
      } else if (looped === undefined) {
        // The argument validator (ajv) loads once a tool call starts, while its arguments stream
        // in: a run whose answers call no tool never spends the ~20 ms of CPU on it.
        if (event.type === "toolcall_start") loadValidateArguments().catch(() => {});
        if (guards && (event.type === "text_delta" || event.type === "thinking_delta")) {
          looped = guards[event.type === "text_delta" ? "text" : "thinking"].push(event.delta);
          if (looped) stopLooping.abort();
        }
        if (!started) {
          started = true;
          await emit({ type: "message_start", message: createAssistantMessage(options.model, { stopReason: "stop" }) });
        }
        const forwarded = capEvent(event);
        if (forwarded) await emit({ type: "message_update", event: forwarded });
      }
    }
  } catch (error) {
    // The stream function's own words: they name the cause better than any prefix of ours.
    if (!started) return failWith(options, describeError(error));
    final = createAssistantMessage(options.model, {
      stopReason: signal.aborted ? "aborted" : "error",
      errorMessage: describeError(error),
    });
  }
  final ??= createAssistantMessage(options.model, {
    stopReason: "error",
    errorMessage: "The model stream ended without a final message.",
  });
  if (looped !== undefined && !signal.aborted) final = { ...final, stopReason: "error", errorMessage: looped };
  // Before message_end: listeners persist the message there (and flush it when it has tool calls).
  final = capToolArguments(final, argumentLimit);
  if (!started) await emit({ type: "message_start", message: final });
  await emit({ type: "message_end", message: final });
  return final;
}

async function prepareMessages({ config, context, signal, llmMessages }: StreamAssistantOptions): Promise<Message[]> {
  const messages = config.transformContext ? await config.transformContext(context.messages, signal) : context.messages;
  if (messages === context.messages && llmMessages) return llmMessages.slice();
  if (config.convertToLlm) return config.convertToLlm(messages);
  return convertEach(messages, config.convertMessageToLlm);
}

/** The default per-message conversion: the model's roles pass, `custom` messages (for UIs) drop. */
export function convertMessageByDefault(message: AgentMessage): Message | undefined {
  return message.role === "custom" ? undefined : message;
}

/** Converts messages one by one with `convert` (default: {@link convertMessageByDefault}). */
export function convertEach(
  messages: readonly AgentMessage[],
  convert: (message: AgentMessage) => Message | undefined = convertMessageByDefault,
): Message[] {
  const result: Message[] = [];
  for (const message of messages) {
    const converted = convert(message);
    if (converted) result.push(converted);
  }
  return result;
}

/** Default `convertToLlm`: keeps the model's roles, drops `custom` messages (they are for UIs). */
export function convertToLlm(messages: AgentMessage[]): Message[] {
  return convertEach(messages);
}

async function failWith(options: StreamAssistantOptions, errorMessage: string): Promise<AssistantMessage> {
  const message = createAssistantMessage(options.model, {
    stopReason: options.signal.aborted ? "aborted" : "error",
    errorMessage,
  });
  await options.emit({ type: "message_start", message });
  await options.emit({ type: "message_end", message });
  return message;
}
