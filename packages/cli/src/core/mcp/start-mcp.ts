/**
 * MCP for one run: loads the configured servers and, only when there are any, loads the client
 * (and with it the SDK) and starts connecting in the background. A run without servers pays for
 * reading at most two small files, never for the SDK (start-up time).
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { InputResolution } from "../extensions/resolve-input.js";
import { isProjectMcpTrusted } from "../trust.js";
import type { UserInterface } from "../user-interface.js";
import { loadMcpServers } from "./mcp-config.js";
import type { McpManager } from "./mcp-manager.js";
import type { McpSamplerOptions } from "./mcp-sampling.js";

export type StartMcpOptions = {
  gyreHome: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether the project folder is trusted; its `.mcp.json` also needs its own approval (see `isProjectMcpTrusted`). */
  trusted: boolean;
  trustFlag: boolean;
  /** `--mcp-config` files, in order. */
  configFiles: string[];
  noMcp: boolean;
  clientVersion: string;
  startupTimeoutMs?: number;
  /** Asks the user on a server's behalf (elicitation); a UI that cannot ask declines. */
  ui?: UserInterface;
  onNotice?: (message: string, level?: "info" | "warning") => void;
  /** The run's model for servers' sampling requests (the policy comes from `mcpSampling`); absent: not offered. */
  sampling?: Omit<McpSamplerOptions, "ui">;
};

/**
 * Returns the manager (connecting in the background) or undefined when no server is configured,
 * and warnings about files or servers that could not be used. Throws an Error with a sentence
 * when a `--mcp-config` file is missing or broken (bad usage).
 */
export async function startMcp(
  options: StartMcpOptions,
): Promise<{ manager: McpManager | undefined; warnings: string[] }> {
  const projectAllowed =
    options.trusted &&
    (await isProjectMcpTrusted({ gyreHome: options.gyreHome, cwd: options.cwd, trustFlag: options.trustFlag }));
  const loaded = await loadMcpServers({
    gyreHome: options.gyreHome,
    cwd: options.cwd,
    trusted: projectAllowed,
    configFiles: options.configFiles,
    env: options.env,
    noMcp: options.noMcp,
  });
  const warnings = [...loaded.warnings, ...loaded.unusable.map((problem) => `${problem.problem} (in ${problem.file})`)];
  if (loaded.servers.length === 0) return { manager: undefined, warnings };
  const [{ createMcpManager }, { elicitWithUserInterface }, { createMcpSampler }] = await Promise.all([
    import("./mcp-manager.js"),
    import("./elicit-with-user-interface.js"),
    import("./mcp-sampling.js"),
  ]);
  const { ui } = options;
  const elicitationPolicy = new Map(loaded.servers.map((entry) => [entry.name, entry.config.elicitation]));
  const sample = options.sampling ? createMcpSampler({ ...options.sampling, ...(ui ? { ui } : {}) }) : undefined;
  const manager = createMcpManager({
    servers: loaded.servers,
    unusable: loaded.unusable,
    cwd: options.cwd,
    env: options.env,
    clientVersion: options.clientVersion,
    gyreHome: options.gyreHome,
    ...(options.startupTimeoutMs ? { startupTimeoutMs: options.startupTimeoutMs } : {}),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    elicit: (server, request, signal) =>
      elicitWithUserInterface(ui, server, request, signal, elicitationPolicy.get(server) ?? "decline"),
    ...(sample ? { sample } : {}),
  });
  return { manager, warnings };
}

/**
 * Keeps a session's tools in step with the servers': `baseTools`, then every connected server's.
 * A change during a run reaches the next turn. Returns the function that stops following.
 */
export function attachMcpTools(
  session: { setTools(tools: AnyAgentTool[]): void },
  baseTools: AnyAgentTool[],
  manager: McpManager,
): () => void {
  const update = () => session.setTools([...baseTools, ...manager.tools()]);
  update();
  return manager.onToolsChanged(update);
}

/** `/mcp__server__prompt args` for the input resolver; the prompts module loads on first use. */
export function createMcpPromptExpander(
  manager: McpManager,
): (name: string, rest: string) => Promise<string | undefined> {
  return async (name, rest) => (await import("./mcp-prompts.js")).expandMcpPrompt(manager, name, rest);
}

/**
 * Wraps the input resolver (when there are MCP servers) so a prompt's `@server:uri` mentions get the resources attached
 * (mcp-mentions.ts, loaded on first use); a handled command passes through untouched.
 */
export function withOptionalMentions(
  resolve: (text: string) => Promise<InputResolution>,
  manager: McpManager | undefined,
): (text: string) => Promise<InputResolution> {
  if (!manager) return resolve;
  return async (text) => {
    const resolved = await resolve(text);
    if (resolved.kind !== "prompt" || !resolved.text.includes("@")) return resolved;
    const { expandMcpMentions } = await import("./mcp-mentions.js");
    return { ...resolved, text: await expandMcpMentions(manager, resolved.text) };
  };
}
