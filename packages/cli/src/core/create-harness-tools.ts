/**
 * A start-up step: the harness tools that need more than a workspace — `todo` (a store the modes
 * show), `task` (subagents under the session's governor) and `web_fetch` (the network setting) —
 * created when the run's tool list names them.
 */

import * as nodePath from "node:path";
import type { AgentLoopConfig, AgentMessage, AnyAgentTool } from "@gyre/agent";
import type { Model, ModelRegistry } from "@gyre/ai";
import { adaptClaudeAgents } from "./claude-compat/claude-agents.js";
import type { Governor } from "./governor/governor.js";
import type { RuntimeNotice } from "./inspect-project.js";
import type { Redactor } from "./session/redact-secrets.js";
import { SessionManager } from "./session/session-manager.js";
import { SUBAGENT_SESSION_MODE } from "./session/session-store.js";
import type { SessionEntry } from "./session/types.js";
import { loadAgentDefinitions } from "./subagents/agent-definitions.js";
import type { SubagentJournal } from "./subagents/run-subagent.js";
import { createSubagentTree, createTaskTool, type SubagentEvent } from "./subagents/task-tool.js";
import { createTodoStore, createTodoTool, findLatestTodos, type TodoItem, type TodoStore } from "./tools/todo-tool.js";
import type { HarnessToolName } from "./tools/tool-names.js";
import { createWebFetchTool } from "./tools/web-fetch-tool.js";

export type HarnessTools = {
  tools: AnyAgentTool[];
  todos: TodoStore;
  notices: RuntimeNotice[];
  /** Where subagent events go; the session sets it once it exists. */
  setSubagentListener(listener: (event: SubagentEvent) => void): void;
};

export type HarnessToolsOptions = {
  names: readonly HarnessToolName[];
  cwd: string;
  home: string;
  trusted: boolean;
  /** A Claude Code setup's agent folders (docs/claude-compat.md), read before gyre's own. */
  claudeAgentDirs?: readonly string[];
  /** The tools subagents may be given (the run's other tools). */
  baseTools: () => readonly AnyAgentTool[];
  /** The main agent's model now (it can change with /model). */
  model: () => Model;
  /** Where `provider/model` ids of subagents are looked up. */
  models: ModelRegistry;
  governor: Governor;
  /** Where subagent session files go; undefined keeps them in memory. */
  sessionsDir: string | undefined;
  /** How subagents' session files are redacted (the parent's redactor); default the process's. */
  redact?: Redactor;
  parentSessionFile: () => string | undefined;
  loop: Pick<AgentLoopConfig, "getApiKey" | "streamOptions" | "beforeToolCall" | "afterToolCall">;
  network: { allowed: boolean; allowedDomains: readonly string[] };
  limits?: { maxDepth?: number; maxSpawns?: number; maxParallel?: number };
  /** The main agent has the provider's web search (`--web-search`): subagents whose definition allows it get it. */
  webSearch?: boolean;
  /** Pauses the whole tree when a subagent reaches its budget (the session's question); none: it ends. */
  pauseAtBudget?: (signal: AbortSignal) => Promise<boolean>;
  /** A resumed session's list (see `restoreTodos`). */
  initialTodos?: readonly TodoItem[];
};

/**
 * The todo list a session left: the last todo call in its context, else the list its latest
 * compaction kept (the call itself was summarised away); empty when it never had one.
 */
export function restoreTodos(messages: readonly AgentMessage[], entries: readonly SessionEntry[]): TodoItem[] {
  const fromMessages = findLatestTodos(messages);
  if (fromMessages !== undefined) return fromMessages;
  const compaction = entries.findLast((entry) => entry.type === "compaction");
  return compaction?.type === "compaction" ? [...(compaction.details?.todos ?? [])] : [];
}

/** Creates the named harness tools (in the order named). */
export async function createHarnessTools(options: HarnessToolsOptions): Promise<HarnessTools> {
  const todos = createTodoStore(options.initialTodos);
  const notices: RuntimeNotice[] = [];
  let listener: ((event: SubagentEvent) => void) | undefined;
  const tools: AnyAgentTool[] = [];
  for (const name of options.names) {
    if (name === "todo") tools.push(createTodoTool({ store: todos }));
    if (name === "web_fetch") {
      tools.push(
        createWebFetchTool({ networkAllowed: options.network.allowed, allowedDomains: options.network.allowedDomains }),
      );
    }
    if (name === "task") {
      const dirs = [
        ...(options.claudeAgentDirs ?? []),
        nodePath.join(options.home, "agents"),
        ...(options.trusted ? [nodePath.join(options.cwd, ".gyre", "agents")] : []),
      ];
      const loaded = await loadAgentDefinitions(dirs);
      const { problems } = loaded;
      const definitions = adaptClaudeAgents(loaded.definitions, options.claudeAgentDirs ?? []);
      notices.push(
        ...problems.map(
          (problem): RuntimeNotice => ({
            level: "warning",
            text: `Skipped agent ${problem.path}: ${problem.message}.`,
          }),
        ),
      );
      tools.push(
        createTaskTool({
          definitions,
          tools: options.baseTools,
          model: options.model,
          resolveModel: (id) => resolveAgentModel(id, options.model(), options.models),
          tree: createSubagentTree(options.governor.budget, options.limits),
          openJournal: (info) => openJournal(options, info),
          onEvent: (event) => listener?.(event),
          loop: options.loop,
          webSearch: () => options.webSearch === true,
          ...(options.pauseAtBudget === undefined ? {} : { pauseAtBudget: options.pauseAtBudget }),
        }),
      );
    }
  }
  return { tools, todos, notices, setSubagentListener: (next) => (listener = next) };
}

/** `provider/model`, or a model id of the main agent's provider (an unknown id keeps its limits). */
function resolveAgentModel(id: string, current: Model, models: ModelRegistry): Model | undefined {
  const slash = id.indexOf("/");
  const provider = slash > 0 ? id.slice(0, slash) : current.provider;
  const modelId = slash > 0 ? id.slice(slash + 1) : id;
  return (
    models.findModel(provider, modelId) ??
    (provider === current.provider ? { ...current, id: modelId, name: modelId } : undefined)
  );
}

function openJournal(
  options: HarnessToolsOptions,
  info: { parentToolCallId: string; agent: string },
): SubagentJournal | undefined {
  if (options.sessionsDir === undefined) return undefined;
  const parent = options.parentSessionFile();
  const store = SessionManager.create({
    sessionsDir: options.sessionsDir,
    cwd: options.cwd,
    ...(options.redact ? { redact: options.redact } : {}),
    // Marked, so `--continue` (the newest session of the folder) passes over a subagent's journal.
    mode: SUBAGENT_SESSION_MODE,
    ...(parent === undefined ? {} : { parentSession: parent }),
  });
  store.setName(`${info.agent} for ${info.parentToolCallId}`);
  return {
    get path() {
      return store.path;
    },
    append: (message) => void store.appendMessage(message),
    close: () => store.close(),
  };
}
