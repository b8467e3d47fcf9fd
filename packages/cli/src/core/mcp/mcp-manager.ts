/**
 * All configured MCP servers of a run: connects each in the background at once, says when they
 * are ready (headless runs wait, bounded; the TUI does not), and offers their tools as AgentTools
 * that follow each server's current list.
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { describeUnusableServer, type McpConfigProblem } from "./mcp-config.js";
import { createMcpConnection, type McpConnection } from "./mcp-connection.js";
import { createMcpResourceCatalog, type McpResourceCatalog } from "./mcp-resource-catalog.js";
import { createMcpResourceTools } from "./mcp-resource-tools.js";
import type { McpSampler } from "./mcp-sampling.js";
import { createMcpAgentTool } from "./mcp-tool.js";
import { createToolSearch } from "./tool-search.js";
import type { McpServerEntry, McpServerStatus } from "./types.js";

export type McpManagerOptions = {
  servers: McpServerEntry[];
  /** Configured servers that cannot start (listed by `statuses()` as disabled). */
  unusable?: McpConfigProblem[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** Where OAuth tokens from `gyre mcp login` are kept (remote servers use them when present). */
  gyreHome?: string;
  /** Default connect timeout per server (`mcpStartupTimeoutMs`, default 10 s). */
  startupTimeoutMs?: number;
  onNotice?: (message: string, level?: "info" | "warning") => void;
  elicit?: (server: string, request: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
  /** Answers servers' sampling requests with the run's model; without it sampling is not offered. */
  sample?: McpSampler;
  restartDelaysMs?: number[];
  /** Above this many estimated tokens of MCP tool definitions, the model gets `tool_search` instead (default 10000). */
  toolSearchThresholdTokens?: number;
};

export type McpManager = {
  /**
   * Waits until every server connected or failed, at most `timeoutMs` (default: the startup
   * timeout). Servers still connecting then are closed and left out; their names are returned
   * with one sentence each for the user.
   */
  waitForStartup(timeoutMs?: number): Promise<{ leftOut: string[]; messages: string[] }>;
  /** The tools of every connected server now (rebuilt when a list changes). */
  tools(): AnyAgentTool[];
  /** Calls `listener` whenever the combined tool list changed; returns the unsubscribe. */
  onToolsChanged(listener: () => void): () => void;
  statuses(): McpServerStatus[];
  connection(name: string): McpConnection | undefined;
  /** The servers' resources for `@server:` completion (cached, refreshed on list changes). */
  readonly resources: McpResourceCatalog;
  close(): Promise<void>;
};

/** Starts connecting to every server at once and returns without waiting. */
export function createMcpManager(options: McpManagerOptions): McpManager {
  const listeners = new Set<() => void>();
  let cached: AnyAgentTool[] | undefined;
  const changed = () => {
    cached = undefined;
    for (const listener of [...listeners]) listener();
  };
  const connections = new Map<string, McpConnection>();
  const catalog = createMcpResourceCatalog(() => [...connections.values()]);
  const { sample } = options;
  for (const entry of options.servers) {
    connections.set(
      entry.name,
      createMcpConnection({
        entry,
        cwd: options.cwd,
        env: options.env,
        clientVersion: options.clientVersion,
        ...(options.gyreHome ? { gyreHome: options.gyreHome } : {}),
        ...(options.startupTimeoutMs ? { startupTimeoutMs: options.startupTimeoutMs } : {}),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        ...(options.elicit
          ? { elicit: (request, signal) => options.elicit?.(entry.name, request, signal) ?? decline() }
          : {}),
        ...(sample ? { sample: (request, signal) => sample(entry.name, request, signal) } : {}),
        ...(options.restartDelaysMs ? { restartDelaysMs: options.restartDelaysMs } : {}),
        onToolsChanged: changed,
        onResourcesChanged: () => catalog.invalidate(entry.name),
      }),
    );
  }
  /** Warned once per server and name: a list that lists a name twice keeps doing so. */
  const warned = new Set<string>();
  /** A server's tools, each model-facing name once: the first listed wins (providers refuse duplicates). */
  const uniqueTools = (connection: McpConnection): AnyAgentTool[] => {
    const byName = new Map<string, AnyAgentTool>();
    for (const tool of connection.tools()) {
      const wrapped = createMcpAgentTool(connection, tool);
      if (!byName.has(wrapped.name)) byName.set(wrapped.name, wrapped);
      else if (!warned.has(`${connection.name}\u0000${wrapped.name}`)) {
        warned.add(`${connection.name}\u0000${wrapped.name}`);
        options.onNotice?.(
          `MCP server "${connection.name}" lists more than one tool named ${wrapped.name}; only the first is offered to the model.`,
          "warning",
        );
      }
    }
    return [...byName.values()];
  };
  const withResources = () =>
    [...connections.values()].filter(
      (connection) => connection.client()?.getServerCapabilities()?.resources !== undefined,
    );
  const resourceTools = createMcpResourceTools(withResources);
  const toolSearch = createToolSearch({
    ...(options.toolSearchThresholdTokens !== undefined ? { thresholdTokens: options.toolSearchThresholdTokens } : {}),
    onLoad: changed,
  });
  return {
    async waitForStartup(timeoutMs = options.startupTimeoutMs ?? 10_000) {
      const all = Promise.all([...connections.values()].map((connection) => connection.ready));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([all, timeout]);
      clearTimeout(timer);
      const late = [...connections.values()].filter((connection) => connection.status().state === "connecting");
      await Promise.all(late.map((connection) => connection.close()));
      return {
        leftOut: late.map((connection) => connection.name),
        messages: late.map(
          (connection) =>
            `MCP server "${connection.name}" did not finish connecting within ${timeoutMs} ms and was left out of this run; raise mcpStartupTimeoutMs or check it with gyre mcp list --verbose.`,
        ),
      };
    },
    tools() {
      cached ??= toolSearch.select([
        ...[...connections.values()].flatMap((connection) =>
          connection.status().state === "connected" ? uniqueTools(connection) : [],
        ),
        ...(withResources().length > 0 ? resourceTools : []),
      ]);
      return cached;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    statuses() {
      const disabled = (options.unusable ?? []).map(describeUnusableServer);
      return [...[...connections.values()].map((connection) => connection.status()), ...disabled];
    },
    connection: (name) => connections.get(name),
    resources: catalog,
    async close() {
      listeners.clear();
      await Promise.all([...connections.values()].map((connection) => connection.close()));
    },
  };
}

async function decline(): Promise<ElicitResult> {
  return { action: "decline" };
}
