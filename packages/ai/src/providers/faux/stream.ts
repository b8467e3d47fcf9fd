import { GyreError } from "../../errors.js";
import type { AssistantMessageEventStream } from "../../event-stream.js";
import { processSlot } from "../../process-state.js";
import { sleep } from "../../transport/http.js";
import type { Context, Message, Model, StreamOptions } from "../../types.js";
import { runProvider } from "../run-provider.js";

/** One block of a scripted response. A tool call's `arguments` may be raw text to simulate bad JSON. */
export type FauxBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "toolCall"; name: string; arguments: Record<string, unknown> | string; id?: string };

/** One scripted model response. */
export type FauxResponse = {
  content?: FauxBlock[];
  /** Default: "toolUse" when the response has tool calls, else "stop". */
  stopReason?: "stop" | "length" | "toolUse";
  /** Ends the response with this error after streaming `content`. */
  error?: string;
  /** Per-response override of the token delay. */
  tokenDelayMs?: number;
};

/** A fixed response, or one computed from the context the model receives. */
export type FauxScriptItem = FauxResponse | ((context: Context) => FauxResponse);

export type FauxOptions = {
  /** Delay between tokens in ms. 0 (default) streams as fast as possible, still one event per token. */
  tokenDelayMs?: number;
  /** Characters per streamed token. Default 4. */
  tokenSize?: number;
  /** What happens when the script runs out: an error (default) or a repeat of the last item. */
  whenExhausted?: "error" | "repeat-last";
  /** Model id and provider name to report. Defaults: "faux-1", "faux". */
  modelId?: string;
  provider?: string;
};

/** A scripted model: pass `model` to `stream()`; inspect `contexts` to see what it was sent. */
export type FauxModel = {
  model: Model;
  /** Every context the model received, in order. */
  contexts: Context[];
  /** Responses not yet consumed. */
  remaining(): number;
  /** Appends responses to the script. */
  push(...items: FauxScriptItem[]): void;
};

type FauxState = { script: FauxScriptItem[]; options: FauxOptions; contexts: Context[] };

/**
 * Scripts by the model's `baseUrl`, held weakly: a model handed through a registry is a copy, so
 * the key finds the script, but neither the map nor a copy keeps it alive. The FauxModel handle
 * and the model object it returned do; once both are gone the entry is freed.
 */
const states = processSlot("faux.states", () => new Map<string, WeakRef<FauxState>>());
const forget = new FinalizationRegistry<string>((key) => {
  if (states.get(key)?.deref() === undefined) states.delete(key);
});
/**
 * The strong link from the model object `createFauxModel` returned to its script. From the global
 * symbol registry, like the map above, so every copy of the package finds it.
 */
const SCRIPT = Symbol.for("gyre.fauxScript");
/** Script numbers are one sequence per process: two copies must not both make `faux://script-1`. */
const counter = processSlot("faux.counter", () => ({ next: 0 }));

/**
 * Creates a deterministic scripted model for tests, demos and users' own tests. Each call to
 * `stream()` consumes the next script item and streams it token by token; aborts are honoured
 * between tokens; usage is estimated at 4 characters per token.
 */
export function createFauxModel(script: FauxScriptItem[], options: FauxOptions = {}): FauxModel {
  const key = `faux://script-${++counter.next}`;
  const state: FauxState = { script: [...script], options, contexts: [] };
  states.set(key, new WeakRef(state));
  forget.register(state, key);
  const model: Model = {
    id: options.modelId ?? "faux-1",
    name: "Faux scripted model",
    api: "faux",
    provider: options.provider ?? "faux",
    baseUrl: key,
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 128_000,
    maxTokens: 16_384,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  // Not enumerable: copies, JSON and structuredClone of the model never carry the script.
  Object.defineProperty(model, SCRIPT, { value: state, enumerable: false });
  return {
    model,
    contexts: state.contexts,
    remaining: () => state.script.length,
    push: (...items) => {
      state.script.push(...items);
    },
  };
}

/** The `faux` API's stream function (registered as "faux"). */
export function streamFaux(model: Model, context: Context, options: StreamOptions = {}): AssistantMessageEventStream {
  return runProvider(model, options, async (builder) => {
    const state = (model as { [SCRIPT]?: FauxState })[SCRIPT] ?? states.get(model.baseUrl)?.deref();
    if (!state)
      throw new Error(`No faux script is registered for ${model.baseUrl}; create one with createFauxModel().`);
    state.contexts.push(structuredClone(context));
    const item =
      state.script.length > 1 || state.options.whenExhausted !== "repeat-last" ? state.script.shift() : state.script[0];
    if (!item) throw new Error("The faux model's script has no response left for this request.");
    const response = typeof item === "function" ? item(context) : item;
    const delay = response.tokenDelayMs ?? state.options.tokenDelayMs ?? 0;
    const size = Math.max(1, state.options.tokenSize ?? 4);
    const signal = options.signal;
    const pace = async () => {
      if (signal?.aborted) throw new GyreError("aborted", "Request was aborted.");
      if (delay > 0) await sleep(delay, signal);
    };
    builder.message.usage.input = estimateTokens(context);
    let outputChars = 0;
    let hasToolCall = false;
    for (const [index, block] of (response.content ?? []).entries()) {
      const key = String(index);
      if (block.type === "text" || block.type === "thinking") {
        const text = block.type === "text" ? block.text : block.thinking;
        const append = (piece: string) =>
          block.type === "text" ? builder.text(key, piece) : builder.thinking(key, piece);
        // The block opens with its first token, so an abort before it leaves no empty block behind.
        if (text === "") {
          if (signal?.aborted) throw new GyreError("aborted", "Request was aborted.");
          append("");
        }
        for (let at = 0; at < text.length; at += size) {
          await pace();
          append(text.slice(at, at + size));
        }
        if (block.type === "thinking" && block.signature) builder.signature(key, block.signature);
        outputChars += text.length;
      } else {
        hasToolCall = true;
        const id = block.id ?? `call_${(++counter.next).toString(36)}_${index}`;
        const raw = typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments);
        builder.toolCallStart(key, id, block.name);
        for (let at = 0; at < raw.length; at += size * 4) {
          await pace();
          builder.toolCallDelta(key, raw.slice(at, at + size * 4));
        }
        outputChars += raw.length + block.name.length;
      }
      builder.end(key);
    }
    builder.message.usage.output = Math.ceil(outputChars / 4);
    if (response.error !== undefined) throw new GyreError("http", response.error);
    await pace();
    const stopReason = response.stopReason ?? (hasToolCall ? "toolUse" : "stop");
    builder.finish(stopReason, stopReason);
  });
}

function estimateTokens(context: Context): number {
  let chars = context.systemPrompt?.length ?? 0;
  for (const message of context.messages) chars += messageChars(message);
  for (const tool of context.tools ?? []) chars += tool.name.length + tool.description.length;
  return Math.ceil(chars / 4);
}

function messageChars(message: Message): number {
  if (typeof message.content === "string") return message.content.length;
  let chars = 0;
  for (const block of message.content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else if (block.type === "toolCall") chars += JSON.stringify(block.arguments).length;
    else chars += 1000;
  }
  return chars;
}
