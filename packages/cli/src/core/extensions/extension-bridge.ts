import {
  type AfterToolCallInput,
  type AfterToolCallResult,
  type AgentMessage,
  type AgentOptions,
  type BeforeToolCallInput,
  type BeforeToolCallResult,
  createUserMessage,
} from "@gyre/agent";
import type { ImageContent, Message, Model } from "@gyre/ai";
import type { SessionManager } from "../session/session-manager.js";
import type { ExtensionRunner } from "./extension-runner.js";
import type { ExtensionMessage } from "./types.js";

type BeforeToolCall = (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
type AfterToolCall = (input: AfterToolCallInput, signal: AbortSignal) => Promise<AfterToolCallResult | undefined>;

/** What the bridge needs from the session it connects extensions to. */
export type ExtensionBridgeTarget = {
  store(): SessionManager;
  model(): Model;
  /** Whether a prompt (with its compaction and queued deliveries) is in progress. */
  isBusy(): boolean;
  /** Whether an agent run is in progress (it reads queued messages at its turn boundaries). */
  isRunning(): boolean;
  abort(): void;
  /** Queues `message` for the run in progress; the session delivers it at a turn boundary or as the run ends. */
  queue(message: AgentMessage, deliverAs: "steer" | "followUp"): void;
  /** Runs `message` through the session's prompt path (now, or inside the action in progress); resolves when it settled. */
  start(message: AgentMessage, text: string): Promise<unknown>;
  notice(message: string): void;
};

/**
 * The agent options that route the loop's hooks through extensions: tool-call hooks (after the
 * session's own `beforeToolCall`, if it did not block; before extensions, the session's own
 * `afterToolCall`, whose patch they see), the `context` transform, and custom messages (from
 * `sendMessage`) reaching the model as user text.
 */
export function extensionAgentOptions(
  extensions: ExtensionRunner | undefined,
  own: BeforeToolCall | undefined,
  ownAfter?: AfterToolCall,
): Pick<AgentOptions, "beforeToolCall" | "afterToolCall" | "transformContext" | "convertMessageToLlm"> {
  if (!extensions) return { ...(own ? { beforeToolCall: own } : {}), ...(ownAfter ? { afterToolCall: ownAfter } : {}) };
  return {
    beforeToolCall: async (input, signal) => {
      const verdict = await own?.(input, signal);
      if (verdict?.block) return verdict;
      return extensions.beforeToolCall(input);
    },
    afterToolCall: async (input, signal) => {
      const patch = await ownAfter?.(input, signal);
      if (!patch) return extensions.afterToolCall(input);
      const result = { ...input.result, ...(patch.content ? { content: patch.content } : {}) };
      const theirs = await extensions.afterToolCall({ ...input, result, isError: patch.isError ?? input.isError });
      return { ...patch, ...theirs };
    },
    transformContext: (messages) =>
      extensions.hasHandlers("context") ? extensions.transformContext(messages) : messages,
    convertMessageToLlm: convertCustomMessageToUser,
  };
}

/**
 * Connects `extensions` to a session: what `ExtensionAPI` may do with it. A message sent while
 * a run is in progress is queued (steer by default) and delivered by the session, even as the
 * run ends; one sent otherwise runs through the session's prompt path and `sendMessage`
 * resolves when that run settled. Handler failures become session notices.
 */
export function bindExtensions(extensions: ExtensionRunner, target: ExtensionBridgeTarget): void {
  extensions.bind({
    sessionId: () => target.store().id,
    sessionFile: () => target.store().path,
    model: () => target.model(),
    isIdle: () => !target.isBusy(),
    abort: () => target.abort(),
    appendEntry: (customType, data) => {
      target.store().appendCustom(customType, data);
    },
    getEntries: (customType) =>
      target
        .store()
        .getBranch()
        .flatMap((entry) =>
          entry.type === "custom" && entry.customType === customType
            ? [{ customType, data: entry.data, timestamp: entry.timestamp }]
            : [],
        ),
    sendMessage: async (message, options) => {
      const agentMessage = toAgentMessage(message);
      if (target.isRunning()) return target.queue(agentMessage, options.deliverAs ?? "steer");
      await target.start(agentMessage, typeof agentMessage.content === "string" ? agentMessage.content : "");
    },
    notice: (message) => target.notice(message),
  });
}

/**
 * The system prompt of the run about to start, as `before_agent_start` handlers set it; undefined
 * when no extension listens (the agent keeps its prompt).
 */
export async function systemPromptForRun(
  extensions: ExtensionRunner | undefined,
  input: { prompt: string; images: ImageContent[]; systemPrompt: string },
): Promise<string | undefined> {
  if (!extensions?.hasHandlers("before_agent_start")) return undefined;
  return extensions.beforeAgentStart(input);
}

function toAgentMessage(message: ExtensionMessage): AgentMessage {
  if (typeof message === "string") return createUserMessage(message);
  return {
    role: "custom",
    customType: message.customType,
    content: message.content,
    display: message.display ?? true,
    ...(message.details !== undefined ? { details: message.details } : {}),
    timestamp: Date.now(),
  };
}

function convertCustomMessageToUser(message: AgentMessage): Message {
  return message.role === "custom" ? { role: "user", content: message.content, timestamp: message.timestamp } : message;
}
