/**
 * The coding agent without the CLI: one call builds what `gyre` builds for a run (settings,
 * trust, extensions, skills, tools, system prompt, model, session file, MCP servers, sandbox) and
 * hands back the `AgentSession` the modes use. No argv, no process exit, nothing written to
 * stdout or stderr. The CLI (main.ts) builds its session through this same function.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import type { Model, ModelRegistry, StreamFunction, ThinkingLevel } from "@gyre/ai";
import type { AgentSession } from "./agent-session.js";
import type { Settings } from "./config/settings.js";
import { createRuntime, loadRuntimeBase, type RuntimeIo, type RuntimeNotice } from "./create-runtime.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import type { ExtensionMode } from "./extensions/types.js";
import type { RuntimeConfig, SessionChoice } from "./runtime-config.js";
import { createSecretRegistry } from "./session/redact-secrets.js";
import type { SessionJournals } from "./session/session-journal.js";
import type { BuiltInToolName } from "./tools/tool-names.js";
import { createHeadlessUserInterface, type UserInterface } from "./user-interface.js";

/** Which session the agent continues: see `CreateAgentSessionOptions.session`. */
export type SdkSessionChoice = "memory" | "new" | { open: string; fork?: boolean } | { continue: true; fork?: boolean };

/** What `createAgentSession` builds. Unset fields fall back to settings.json, then the CLI's defaults. */
export type CreateAgentSessionOptions = {
  /** The workspace: the file tools' root, where context files and `.gyre/` are looked for. */
  cwd: string;
  /** A model object (for example `createFauxModel(...).model`); wins over `provider`/`modelId`. */
  model?: Model;
  /** A provider name as the CLI's `--provider` takes it (built-in or from models.json). */
  provider?: string;
  /** A model id as `--model` takes it (`provider/id` works too). */
  modelId?: string;
  /** The key for the model's provider; default: its environment variable in `env`. */
  apiKey?: string;
  baseUrl?: string;
  /** Built-in tools to enable (the coding tools, todo, task, web_fetch), or "none"; default: settings, then read, bash, edit, write. */
  tools?: readonly BuiltInToolName[] | "none";
  /** Tools of your own; one with a built-in's name replaces the built-in. */
  customTools?: readonly AnyAgentTool[];
  /** Replaces the built-in system prompt (tools, context files and skills are still listed). */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  thinkingLevel?: ThinkingLevel;
  budgets?: { maxTurns?: number; maxCostUsd?: number };
  /**
   * "memory" (default): nothing written. "new": a new file in `$GYRE_HOME/sessions`. `{ open }`:
   * the session a path or id prefix names. `{ continue: true }`: the newest session of `cwd`
   * (a new one when there is none). `fork: true` continues in a copy.
   */
  session?: SdkSessionChoice;
  /** Where settings, models.json, sessions and trust live; default `env.GYRE_HOME`, then `~/.gyre`. */
  gyreHome?: string;
  /** Extension files to load; `discover` (default false) also loads the user's and the project's. */
  extensions?: { paths?: readonly string[]; discover?: boolean };
  /** Settings that win over settings.json, field by field (compaction, retry, budgets, …). */
  settings?: Settings;
  /** Trust the project folder (its settings, extensions, SYSTEM.md) without asking. Default false. */
  trust?: boolean;
  /** Folders outside `cwd` the file tools may use. */
  allowPaths?: readonly string[];
  /**
   * Where this session's models.json providers are registered and models looked up. Default: a
   * new registry (`createModelRegistry()`), so sessions in one process never share custom providers.
   */
  models?: ModelRegistry;
  /** Replaces @gyre/ai `stream` for every model call, summaries included (proxies, tests). */
  streamFn?: StreamFunction;
  /** The environment keys and `GYRE_HOME` are read from, and bash inherits; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Answers extensions' questions; default headless (every question declined, notices collected). */
  ui?: UserInterface;
  /** What extensions see as the mode; default "print" (nobody to ask). */
  mode?: ExtensionMode;
  /**
   * MCP servers. `true` (default): the user's `$GYRE_HOME/mcp.json` and, when trusted, the
   * project's `.mcp.json`, as the CLI. `false`: none. A path, or an object in mcp.json's shape
   * (`{ mcpServers: { name: { command, args } } }`): that config too, as `--mcp-config`. The first
   * prompt waits (bounded by the `mcpStartupTimeoutMs` setting) for the servers, as headless runs do.
   */
  mcp?: boolean | string | { mcpServers: Record<string, unknown> };
};

/**
 * What the CLI adds to an integrator's call (main.ts): its parsed flags as the config, the flag
 * names extensions may not take, and a second look at argv once extensions registered theirs.
 */
export type CliAssembly = {
  config: RuntimeConfig;
  reservedFlags: ReadonlySet<string>;
  /** Called once extensions loaded: the config to build the session with (extension flags parsed). */
  configure?: (extensions: ExtensionRunner | undefined) => RuntimeConfig;
  /** A fleet worker's journal for the session file (fleet/session-store.ts), read from its env by main.ts. */
  journals?: SessionJournals;
};

/** A ready session, what start-up had to say, and the one call that ends it. */
export type CreatedAgentSession = {
  session: AgentSession;
  model: Model;
  /** The session's providers and models: the built-ins and its models.json. */
  models: ModelRegistry;
  /** Start-up notices (trust, skills, extensions, damaged session lines); later `ui.notify` calls are added. */
  notices: RuntimeNotice[];
  /** The effective settings: files, then `options.settings`. */
  settings: Settings;
  /** Loaded extensions; undefined when none loaded. */
  extensions: ExtensionRunner | undefined;
  /** `session.dispose()`: stops work in progress, writes the session, closes everything it started. */
  dispose(): Promise<void>;
};

/**
 * Builds a coding-agent session through the same steps as the CLI (`loadRuntimeBase` then
 * `createRuntime`). Throws a `CliError` with a sentence saying what to fix (a missing key, a
 * broken settings file, a locked session); nothing is printed.
 */
export async function createAgentSession(
  options: CreateAgentSessionOptions,
  cli?: CliAssembly,
): Promise<CreatedAgentSession> {
  const env = options.gyreHome
    ? { ...(options.env ?? process.env), GYRE_HOME: options.gyreHome }
    : (options.env ?? process.env);
  const notices: RuntimeNotice[] = [];
  const ui = options.ui ?? createHeadlessUserInterface((text) => notices.push({ level: "warning", text }));
  const io: RuntimeIo = {
    cwd: options.cwd,
    env,
    ui,
    ...(options.model ? { model: options.model } : {}),
    ...(options.customTools ? { customTools: options.customTools } : {}),
    ...(options.streamFn ? { streamFn: options.streamFn } : {}),
    ...(options.models ? { models: options.models } : {}),
    // An integrator's session keeps its keys to itself; the CLI's one session uses the process's registry.
    ...(cli ? { reservedFlags: cli.reservedFlags } : { waitForMcp: true, secrets: createSecretRegistry() }),
    ...(cli?.journals ? { journals: cli.journals } : {}),
  };
  const inline = typeof options.mcp === "object" ? await writeInlineMcpConfig(options.mcp) : undefined;
  try {
    const config = cli?.config ?? toRuntimeConfig(options, inline?.file);
    const base = await loadRuntimeBase(config, io);
    const runtime = await createRuntime(cli?.configure?.(base.resources.extensions) ?? config, base, io);
    notices.unshift(...runtime.notices);
    return {
      session: runtime.session,
      model: runtime.model,
      models: runtime.models,
      notices,
      settings: runtime.settings,
      extensions: runtime.extensions,
      dispose: () => runtime.session.dispose(),
    };
  } finally {
    // The servers' config has been read by now (a restart reuses it): the file is not needed.
    await inline?.remove();
  }
}

/** An `mcp` object written where the MCP loader reads files from: a private temporary file. */
async function writeInlineMcpConfig(config: { mcpServers: Record<string, unknown> }) {
  const dir = await mkdtemp(join(tmpdir(), "gyre-mcp-"));
  const file = join(dir, "mcp.json");
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

function mcpConfigOf(options: CreateAgentSessionOptions, inlineFile: string | undefined): RuntimeConfig["mcp"] {
  if (options.mcp === false) return { enabled: false, configFiles: [] };
  if (typeof options.mcp === "string") return { enabled: true, configFiles: [resolve(options.cwd, options.mcp)] };
  return { enabled: true, configFiles: inlineFile ? [inlineFile] : [] };
}

function toRuntimeConfig(options: CreateAgentSessionOptions, inlineMcpFile: string | undefined): RuntimeConfig {
  const { model } = options;
  return {
    mode: options.mode ?? "print",
    mcp: mcpConfigOf(options, inlineMcpFile),
    ...(model ? { provider: model.provider, model: model.id } : {}),
    ...(!model && options.provider !== undefined ? { provider: options.provider } : {}),
    ...(!model && options.modelId !== undefined ? { model: options.modelId } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.thinkingLevel !== undefined ? { thinking: options.thinkingLevel } : {}),
    ...(options.tools !== undefined ? { tools: options.tools } : {}),
    ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    budgets: { ...options.budgets },
    session: sessionChoiceOf(options.session ?? "memory"),
    extensions: { paths: options.extensions?.paths ?? [], discover: options.extensions?.discover ?? false },
    allowPaths: options.allowPaths ?? [],
    trust: options.trust ?? false,
    ...(options.settings ? { settings: options.settings } : {}),
  };
}

function sessionChoiceOf(choice: SdkSessionChoice): SessionChoice {
  if (choice === "memory" || choice === "new") return { kind: choice };
  if ("open" in choice) return { kind: "open", pathOrId: choice.open, fork: choice.fork ?? false };
  return { kind: "continue", fork: choice.fork ?? false };
}
