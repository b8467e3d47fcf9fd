/**
 * One editor session over one gyre `AgentSession` (docs/acp.md): the session's events become
 * `session/update`s, in order; a prompt is the session's `prompt` op and its response waits for
 * the updates it caused; cancel is the `abort` op; modes and config options map to `set_mode`,
 * `set_model` and `set_thinking`. The session decides what runs while it is busy.
 */
import type {
  AgentContext,
  AvailableCommand,
  ContentBlock,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { ThinkingLevel } from "@gyre/ai";
import type { AgentSession, SessionEvent, SessionRunResult } from "../../core/agent-session.js";
import { resolveApiKey } from "../../core/config/resolve-api-key.js";
import { SessionBusyError } from "../../core/session-ops.js";
import { OP_COMMANDS, runOpCommand } from "./acp-commands.js";
import { toGyrePrompt } from "./acp-prompt.js";
import { diffContent, fileSnapshot, resultText, startedToolCall, textContent, toolPath } from "./acp-tool-calls.js";
import type { OpenedAcpSession } from "./acp-types.js";

const THINKING: readonly ThinkingLevel[] = ["off", "low", "medium", "high"];

export const ACP_MODES: SessionModeState["availableModes"] = [
  {
    id: "default",
    name: "Default",
    description: "Edits files in the workspace; asks before anything the sandbox and rules do not allow.",
  },
  {
    id: "plan",
    name: "Plan",
    description: "Read-only: investigates and proposes a plan; write and edit are withheld.",
  },
];

type FileTool = { path: string; before: string | null | undefined };

export class AcpSession {
  /** Every update sent so far, chained: a prompt's response waits for its updates. */
  private outgoing: Promise<void> = Promise.resolve();
  private cancelled = false;
  /** write/edit calls in flight: the file before the call, for the diff. */
  private readonly files = new Map<string, FileTool>();
  private compactions = 0;
  private readonly unsubscribe: () => void;

  constructor(
    readonly id: string,
    private readonly opened: OpenedAcpSession,
    private readonly client: AgentContext,
    readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
    /** Saves the mode for the next load; the mode's update (and set_mode's answer) wait for it. */
    private readonly onModeChange: (mode: string) => Promise<void>,
  ) {
    this.unsubscribe = this.session.subscribe((event) => this.onEvent(event));
  }

  get session(): AgentSession {
    return this.opened.session;
  }

  /** Sends one update after the ones before it; a closed connection drops it. */
  send(update: SessionUpdate): Promise<void> {
    const sessionId = this.id;
    this.outgoing = this.outgoing.then(() =>
      this.client.notify("session/update", { sessionId, update }).catch(() => {}),
    );
    return this.outgoing;
  }

  notice(title: string, severity: "info" | "warning" | "error"): void {
    void this.send({ sessionUpdate: "notice", severity, title });
  }

  /** Runs a prompt to its end; resolves with the stop reason once every update it caused is sent. */
  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const { text, images } = toGyrePrompt(blocks);
    this.cancelled = false;
    try {
      const reply = await runOpCommand(this.session, text);
      if (reply !== undefined) {
        if (reply) void this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } });
        await this.outgoing;
        return this.cancelled ? "cancelled" : "end_turn";
      }
      const result = await this.session.submit({ type: "prompt", text, ...(images.length > 0 ? { images } : {}) });
      await this.outgoing;
      await this.sendUsage();
      return this.stopReasonOf(result);
    } catch (error) {
      await this.outgoing;
      if (error instanceof SessionBusyError)
        throw RequestError.invalidRequest(
          undefined,
          "a prompt is already running in this session; wait for it or cancel it.",
        );
      if (this.cancelled) return "cancelled";
      throw error;
    }
  }

  private stopReasonOf(result: SessionRunResult | { delivered: string }): StopReason {
    if (this.cancelled) return "cancelled";
    if (!("reason" in result)) return "end_turn";
    switch (result.reason) {
      case "aborted":
        return "cancelled";
      case "budget":
        return "max_turn_requests";
      case "error": {
        const message = this.session.state.lastError ?? "the model call failed";
        throw RequestError.internalError({ reason: "error" }, message);
      }
      default: {
        const last = [...this.session.messages]
          .reverse()
          .find((message) => "role" in message && message.role === "assistant");
        if (last && "stopReason" in last && last.stopReason === "length") return "max_tokens";
        const refused =
          last && "rawStopReason" in last && /refus|content_filter|safety/i.test(String(last.rawStopReason));
        return refused ? "refusal" : "end_turn";
      }
    }
  }

  /** `session/cancel`: stops the run and the tool in progress; the prompt answers `cancelled`. */
  async cancel(): Promise<void> {
    if (!this.session.state.isRunning) return;
    this.cancelled = true;
    await this.session.submit({ type: "abort" });
  }

  modeState(): SessionModeState {
    return { currentModeId: this.session.state.permissionMode, availableModes: ACP_MODES };
  }

  async setMode(modeId: string): Promise<void> {
    if (modeId !== "default" && modeId !== "plan")
      throw RequestError.invalidParams({ modeId }, `unknown mode "${modeId}"; use default or plan.`);
    await this.session.submit({ type: "set_mode", mode: modeId });
    await this.outgoing;
  }

  /** The model (every model with a key, the current one first) and the thinking level. */
  configOptions(): SessionConfigOption[] {
    const { model, thinkingLevel } = this.session.state;
    const registry = this.session.info.models;
    const current = `${model.provider}/${model.id}`;
    const options = [{ value: current, name: model.name || model.id, description: current }];
    for (const provider of registry.getProviders()) {
      if (provider.apiKeyEnv && !resolveApiKey({ provider: provider.name, env: this.env, models: registry })) continue;
      for (const candidate of registry.getModels(provider.name)) {
        const value = `${candidate.provider}/${candidate.id}`;
        if (value !== current) options.push({ value, name: candidate.name || candidate.id, description: value });
      }
    }
    return [
      { id: "model", name: "Model", category: "model", type: "select", currentValue: current, options },
      {
        id: "thinking",
        name: "Thinking",
        category: "thought_level",
        type: "select",
        currentValue: thinkingLevel,
        options: THINKING.map((level) => ({ value: level, name: level })),
      },
    ];
  }

  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    if (typeof value !== "string") throw RequestError.invalidParams({ configId }, "the value must be a string.");
    if (configId === "thinking") {
      if (!THINKING.includes(value as ThinkingLevel))
        throw RequestError.invalidParams({ value }, `unknown thinking level "${value}"; use ${THINKING.join(", ")}.`);
      await this.session.submit({ type: "set_thinking", level: value as ThinkingLevel });
    } else if (configId === "model") {
      const option = this.configOptions()[0];
      const known =
        option?.type === "select" && option.options.some((entry) => "value" in entry && entry.value === value);
      const slash = value.indexOf("/");
      if (!known || slash < 0)
        throw RequestError.invalidParams({ value }, `unknown model "${value}"; pick one the model option lists.`);
      const registry = this.session.info.models;
      const provider = value.slice(0, slash);
      const model = registry.getModel(provider, value.slice(slash + 1));
      const apiKey = resolveApiKey({ provider, env: this.env, models: registry });
      await this.session.submit({ type: "set_model", model, ...(apiKey ? { apiKey } : {}) }).catch((error: unknown) => {
        if (error instanceof SessionBusyError)
          throw RequestError.invalidRequest(undefined, "the model cannot change while the agent works.");
        throw error;
      });
    } else {
      throw RequestError.invalidParams({ configId }, `unknown config option "${configId}"; use model or thinking.`);
    }
    const configOptions = this.configOptions();
    void this.send({ sessionUpdate: "config_option_update", configOptions });
    return configOptions;
  }

  /**
   * The op commands (`/compact`, `/review`, `/remember`), extension commands, prompt templates and
   * skills (`/skill:name`), each name once: the first wins, as the prompt resolves them (an op
   * command runs before a template of the same name, as a TUI built-in does).
   */
  availableCommands(): AvailableCommand[] {
    const info = this.session.info;
    const hint = { hint: "arguments" };
    const all: AvailableCommand[] = [
      ...OP_COMMANDS,
      ...this.session.extensionCommands().map((command) => ({ ...command, input: hint })),
      ...info.templates.map((template) => ({ name: template.name, description: template.description, input: hint })),
      ...info.skills.map((skill) => ({ name: `skill:${skill.name}`, description: skill.description, input: hint })),
    ];
    return all.filter((command, index) => all.findIndex((other) => other.name === command.name) === index);
  }

  async sendUsage(): Promise<void> {
    const { stats, model } = this.session.state;
    await this.send({
      sessionUpdate: "usage_update",
      used: stats.contextTokens,
      size: model.contextWindow,
      cost: { amount: stats.cost, currency: "USD" },
    });
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.opened.dispose();
    await this.outgoing;
  }

  private onEvent(event: SessionEvent): void {
    switch (event.type) {
      case "message_update": {
        const delta = event.event;
        if (delta.type === "text_delta")
          void this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta.delta } });
        if (delta.type === "thinking_delta")
          void this.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: delta.delta } });
        return;
      }
      case "tool_execution_start": {
        const path = toolPath(event.args, this.cwd);
        // Read now, synchronously: the tool runs only after this event's listeners returned.
        if (path && (event.toolName === "write" || event.toolName === "edit"))
          this.files.set(event.toolCallId, { path, before: fileSnapshot(path) });
        void this.send({
          sessionUpdate: "tool_call",
          ...startedToolCall(event.toolCallId, event.toolName, event.args, this.cwd),
        });
        return;
      }
      case "tool_execution_update":
        void this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          status: "in_progress",
          content: textContent(resultText(event.partialResult)),
        });
        return;
      case "tool_execution_end": {
        const file = this.files.get(event.toolCallId);
        this.files.delete(event.toolCallId);
        const diff = file && !event.isError ? diffContent(file.path, file.before) : [];
        void this.send({
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          status: event.isError ? "failed" : "completed",
          content: diff.length > 0 ? diff : textContent(resultText(event.result)),
          rawOutput: { isError: event.isError, text: resultText(event.result) },
        });
        return;
      }
      case "todo_update":
        void this.send({
          sessionUpdate: "plan",
          entries: event.todos.map((todo) => ({ content: todo.content, status: todo.status, priority: "medium" })),
        });
        return;
      case "permission_mode_changed":
        this.outgoing = this.outgoing.then(() => this.onModeChange(event.mode));
        void this.send({ sessionUpdate: "current_mode_update", currentModeId: event.mode });
        return;
      case "compaction_start":
        this.compactions++;
        void this.send({
          sessionUpdate: "compaction_update",
          compactionId: `c${this.compactions}`,
          status: "in_progress",
        });
        return;
      case "compaction_end":
        void this.send({
          sessionUpdate: "compaction_update",
          compactionId: `c${this.compactions}`,
          status: event.error ? "failed" : "completed",
          ...(event.error ? { error: event.error } : {}),
        });
        return;
      case "notice":
        this.notice(event.message, event.level);
        return;
      case "session_changed":
        void this.send({ sessionUpdate: "session_info_update", updatedAt: new Date().toISOString() });
        return;
      default:
        return;
    }
  }

  /** Marks a call the user allowed as running. */
  allowed(toolCallId: string): void {
    void this.send({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
  }
}
