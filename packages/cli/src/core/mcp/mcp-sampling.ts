/**
 * MCP sampling: a server asks the client's model for a completion (`sampling/createMessage`).
 * gyre answers with the run's current model through @gyre/ai, after the user said yes (TUI
 * dialog, or the RPC client's `ui_request`), or without asking when `mcpSampling` is `allow`.
 * Print and JSON mode cannot ask, so `ask` denies there. A denial is a JSON-RPC error whose
 * message tells the server (and its user) why and what setting changes it.
 */
import {
  type AssistantMessage,
  complete,
  createAssistantMessage,
  type Message,
  type Model,
  type StreamFunction,
} from "@gyre/ai";
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import type { UserInterface } from "../user-interface.js";

export type McpSamplingPolicy = "ask" | "allow" | "deny";

export type McpSamplerOptions = {
  policy: McpSamplingPolicy;
  ui?: UserInterface;
  /** The run's model now (a model switch mid-session is followed). */
  model: () => Model;
  apiKey: (provider: string) => string | undefined;
  streamFn?: StreamFunction;
};

/** Answers one sampling request of `server`; rejects with a sentence when denied or when the model fails. */
export type McpSampler = (
  server: string,
  request: CreateMessageRequest["params"],
  signal: AbortSignal,
) => Promise<CreateMessageResult>;

const maxSamplingTokens = 8192;

/** Creates the sampler over the run's model and UI. */
export function createMcpSampler(options: McpSamplerOptions): McpSampler {
  return async (server, request, signal) => {
    await approve(options, server, request, signal);
    const model = options.model();
    const messages = request.messages.map((message) => toGyreMessage(message, model));
    const context = { ...(request.systemPrompt ? { systemPrompt: request.systemPrompt } : {}), messages };
    const streamOptions = {
      signal,
      maxTokens: Math.min(request.maxTokens, maxSamplingTokens),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(options.apiKey(model.provider) ? { apiKey: options.apiKey(model.provider) } : {}),
    };
    const answer: AssistantMessage = options.streamFn
      ? await options.streamFn(model, context, streamOptions).result()
      : await complete(model, context, streamOptions);
    if (answer.stopReason === "error" || answer.stopReason === "aborted") {
      throw new Error(
        `gyre's model could not answer the sampling request: ${answer.errorMessage ?? answer.stopReason}.`,
      );
    }
    const text = answer.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    return {
      role: "assistant",
      content: { type: "text", text },
      model: `${model.provider}/${model.id}`,
      stopReason: answer.stopReason === "length" ? "maxTokens" : "endTurn",
    };
  };
}

async function approve(
  options: McpSamplerOptions,
  server: string,
  request: CreateMessageRequest["params"],
  signal: AbortSignal,
): Promise<void> {
  if (options.policy === "allow") return;
  if (options.policy === "deny")
    throw new Error(`gyre does not answer sampling requests ("mcpSampling": "deny" in its settings).`);
  if (!options.ui?.interactive) {
    throw new Error(
      `gyre declined the sampling request: nobody can approve it in this mode; set "mcpSampling": "allow" in gyre's settings to let MCP servers use the model without asking.`,
    );
  }
  const agreed = await options.ui.confirm({
    title: `MCP server "${server}" asks to use the model`,
    message: describeRequest(request),
    signal,
  });
  if (!agreed) throw new Error("The user declined the sampling request.");
}

function describeRequest(request: CreateMessageRequest["params"]): string {
  const last = request.messages.at(-1);
  const text = last ? contentText(last.content) : "";
  const preview = text.length > 400 ? `${text.slice(0, 400)}…` : text;
  return `${preview}\n\n(${request.messages.length} message${request.messages.length === 1 ? "" : "s"}, up to ${request.maxTokens} tokens${request.systemPrompt ? ", with a system prompt" : ""})`;
}

type SamplingContent = CreateMessageRequest["params"]["messages"][number]["content"];

function contentParts(content: SamplingContent): Exclude<SamplingContent, unknown[]>[] {
  return Array.isArray(content) ? content : [content];
}

function contentText(content: SamplingContent): string {
  return contentParts(content)
    .map((part) => (part.type === "text" ? part.text : `[${part.type}]`))
    .join("\n");
}

function toGyreMessage(message: CreateMessageRequest["params"]["messages"][number], model: Model): Message {
  if (message.role === "assistant") {
    return {
      ...createAssistantMessage(model, { stopReason: "stop" }),
      content: [{ type: "text", text: contentText(message.content) }],
    };
  }
  const content = contentParts(message.content).map((part) =>
    part.type === "image"
      ? { type: "image" as const, data: part.data, mimeType: part.mimeType }
      : { type: "text" as const, text: part.type === "text" ? part.text : `[${part.type} content is not supported]` },
  );
  return { role: "user", content, timestamp: Date.now() };
}
