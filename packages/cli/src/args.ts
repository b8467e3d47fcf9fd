/**
 * Command-line parsing for `gyre` (docs/design/layers.md). Pure: no I/O. Bad usage is returned as an
 * error sentence that says what to do; the caller prints it and exits 2.
 */

import { type ParseArgsConfig, parseArgs as parseTokens } from "node:util";
import { BUILT_IN_TOOL_NAMES, isBuiltInToolName } from "./core/tools/tool-names.js";
import { worktreeNameProblem, worktreeNameRule } from "./core/worktree/worktree-name.js";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export type Mode = "interactive" | "print" | "json" | "rpc";
export type ThinkingFlag = "off" | "low" | "medium" | "high";

export type CliArgs = {
  mode: Mode;
  /** True when `-p` was given (print mode; with `--mode json`, JSON events). */
  print: boolean;
  prompt: string[];
  /** `@path` arguments, in order, to inline into the first message. */
  fileArguments: string[];
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** `--api-key-file`: read the key from this file (not visible in `ps`, unlike `--api-key`). */
  apiKeyFile?: string;
  thinking?: ThinkingFlag;
  /** `--models a,b,c`: the patterns of the TUI's Ctrl+P model cycle. */
  models?: string[];
  tools?: string[];
  noTools: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  maxTurns?: number;
  maxCost?: number;
  continueSession: boolean;
  resume: boolean;
  session?: string;
  noSession: boolean;
  fauxScript?: string;
  /** `--output-schema`: a JSON Schema file the final answer must match (print and JSON modes). */
  outputSchema?: string;
  allowPaths: string[];
  /** `--sandbox`: what the OS lets a bash command touch (docs/design/safety.md); default from settings, else workspace-write. */
  sandbox?: "workspace-write" | "read-only" | "off";
  /** `--allow-network`: network inside the sandbox. */
  allowNetwork: boolean;
  /** `--web-search`: let the model search the web with the provider's own server-side tool. */
  webSearch: boolean;
  /** `--approval`: who decides calls that need more than the sandbox gives. */
  approval?: "ask" | "deny" | "allow";
  /** `--plan`: read-only sandbox, write/edit withheld. */
  plan: boolean;
  extensions: string[];
  noExtensions: boolean;
  /** `--mcp-config <file>` files (repeatable), read after `$GYRE_HOME/mcp.json` and `.mcp.json`. */
  mcpConfigs: string[];
  noMcp: boolean;
  trust: boolean;
  /** `-w`/`--worktree [name]`: run in a new git worktree (true: a generated name; docs/worktrees.md). */
  worktree?: string | true;
  /** `--claude-compat`: read the project's and the user's Claude Code setup (docs/claude-compat.md). */
  claudeCompat: boolean;
  /** Continue a session (`-c`/`--session`) in a new file that copies its current branch. */
  fork: boolean;
  /** `--rewind <entryId>`: rewind the session (files and/or conversation) and exit. */
  rewind?: string;
  restore?: "both" | "code" | "conversation";
  /** With --rewind: also overwrite files changed outside gyre since the checkpoint. */
  force: boolean;
  /** Unknown `--flags` seen with `allowUnknownFlags` (extensions may register them). */
  unknownFlags: string[];
  /** Values of flags extensions registered (second parse, with `extensionFlags`). */
  extensionFlags: Record<string, boolean | string>;
  verbose: boolean;
  listModels: boolean;
  version: boolean;
  help: boolean;
};

export type ParseResult = { ok: true; value: CliArgs } | { ok: false; error: string };

const thinkingLevels: ThinkingFlag[] = ["off", "low", "medium", "high"];
const modes: Mode[] = ["interactive", "print", "json", "rpc"];

type ValueFlag =
  | "provider"
  | "model"
  | "baseUrl"
  | "apiKey"
  | "apiKeyFile"
  | "thinking"
  | "models"
  | "tools"
  | "systemPrompt"
  | "appendSystemPrompt"
  | "maxTurns"
  | "maxCost"
  | "session"
  | "rewind"
  | "restore"
  | "fauxScript"
  | "outputSchema"
  | "allowPath"
  | "sandbox"
  | "approval"
  | "extension"
  | "mcpConfig"
  | "mode";

/** Flags that take a value, by long name: where the value goes, and the one-letter form. */
const valueFlags: Record<string, { key: ValueFlag; short?: string }> = {
  provider: { key: "provider" },
  model: { key: "model", short: "m" },
  "base-url": { key: "baseUrl" },
  "api-key": { key: "apiKey" },
  "api-key-file": { key: "apiKeyFile" },
  thinking: { key: "thinking" },
  models: { key: "models" },
  tools: { key: "tools" },
  "system-prompt": { key: "systemPrompt" },
  "append-system-prompt": { key: "appendSystemPrompt" },
  "max-turns": { key: "maxTurns" },
  "max-cost": { key: "maxCost" },
  session: { key: "session" },
  rewind: { key: "rewind" },
  restore: { key: "restore" },
  "faux-script": { key: "fauxScript" },
  "output-schema": { key: "outputSchema" },
  "allow-path": { key: "allowPath" },
  sandbox: { key: "sandbox" },
  approval: { key: "approval" },
  extension: { key: "extension", short: "e" },
  "mcp-config": { key: "mcpConfig" },
  mode: { key: "mode" },
};

type SwitchField = {
  [K in keyof CliArgs]-?: CliArgs[K] extends boolean ? K : never;
}[keyof CliArgs];

/** Flags that take no value, by long name: the field they switch on, and the one-letter form. */
const booleanFlags: Record<string, { field: SwitchField; short?: string }> = {
  print: { field: "print", short: "p" },
  "no-tools": { field: "noTools" },
  continue: { field: "continueSession", short: "c" },
  resume: { field: "resume", short: "r" },
  "no-session": { field: "noSession" },
  "no-extensions": { field: "noExtensions" },
  "no-mcp": { field: "noMcp" },
  fork: { field: "fork" },
  force: { field: "force" },
  "allow-network": { field: "allowNetwork" },
  "web-search": { field: "webSearch" },
  plan: { field: "plan" },
  trust: { field: "trust" },
  "claude-compat": { field: "claudeCompat" },
  verbose: { field: "verbose" },
  "list-models": { field: "listModels" },
  version: { field: "version", short: "v" },
  help: { field: "help", short: "h" },
};

/** Every spelling of a built-in flag as typed (`--model`, `-m`). */
const builtInSpellings: ReadonlySet<string> = new Set(
  [...Object.entries(valueFlags), ...Object.entries(booleanFlags)].flatMap(([name, flag]) => [
    `--${name}`,
    ...(flag.short ? [`-${flag.short}`] : []),
  ]),
);

/** The built-in flags in `node:util` parseArgs' terms. */
const builtInOptions: ParseArgsOptionsConfig = Object.fromEntries([
  ...Object.entries(valueFlags).map(([name, flag]) => [name, { type: "string" as const, ...short(flag) }]),
  ...Object.entries(booleanFlags).map(([name, flag]) => [name, { type: "boolean" as const, ...short(flag) }]),
]);

function short(flag: { short?: string }): { short?: string } {
  return flag.short ? { short: flag.short } : {};
}

function createDefaults(): CliArgs {
  return {
    mode: "interactive",
    print: false,
    prompt: [],
    fileArguments: [],
    noTools: false,
    continueSession: false,
    resume: false,
    noSession: false,
    allowPaths: [],
    allowNetwork: false,
    webSearch: false,
    plan: false,
    extensions: [],
    noExtensions: false,
    mcpConfigs: [],
    noMcp: false,
    trust: false,
    claudeCompat: false,
    fork: false,
    force: false,
    unknownFlags: [],
    extensionFlags: {},
    verbose: false,
    listModels: false,
    version: false,
    help: false,
  };
}

/** Options of `parseArgs` for flags that extensions register (known only once they load). */
export type ParseOptions = {
  /** Collect unknown `--long` flags into `unknownFlags` instead of failing (first pass). */
  allowUnknownFlags?: boolean;
  /** Flags extensions registered, by name without dashes (second pass). */
  extensionFlags?: Record<string, "boolean" | "string">;
};

/** gyre's own long flag names, without dashes (extensions cannot register these). */
export const BUILT_IN_FLAG_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(valueFlags),
  ...Object.keys(booleanFlags),
]);

/**
 * Parses `argv` (without node and script). `--flag=value` and `--flag value` both work; `--`
 * ends option parsing. The mode is settled later by `resolveMode` (stdin may imply print).
 * Extension flags need two passes: first with `allowUnknownFlags`, then, once extensions have
 * loaded, with `extensionFlags` (an unknown flag then fails as usual).
 */
export function parseArgs(argv: string[], options: ParseOptions = {}): ParseResult {
  const args = createDefaults();
  const extensionOptions = Object.fromEntries(
    Object.entries(options.extensionFlags ?? {}).map(([name, type]) => [name, { type }]),
  );
  // strict: false leaves unknown flags and values to the checks below, which keep gyre's sentences.
  const { tokens } = parseTokens({
    args: argv,
    options: { ...extensionOptions, ...builtInOptions },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  let explicitMode: Mode | undefined;
  let terminated = false;
  let lastIndex = -1;
  // The word right after a bare -w/--worktree is the worktree's name (docs/worktrees.md).
  let worktreeAt: number | undefined;
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      terminated = true;
      continue;
    }
    if (token.kind === "positional" && worktreeAt !== undefined && token.index === worktreeAt + 1 && !terminated) {
      const rule = worktreeNameRule(token.value);
      // Words with spaces were meant as a prompt: say how to give one.
      const hint = `; the word after ${argv[worktreeAt] ?? "-w"} is its name, so put a prompt after -- instead`;
      if (rule)
        return {
          ok: false,
          error: `${JSON.stringify(token.value)} cannot name a worktree: ${rule}${/\s/.test(token.value) ? hint : ""}.`,
        };
      args.worktree = token.value;
      continue;
    }
    if (token.kind === "positional") {
      if (!terminated && token.value.startsWith("@") && token.value.length > 1)
        args.fileArguments.push(token.value.slice(1));
      else args.prompt.push(token.value);
      continue;
    }
    // A group of letters (-pc) or a letter with its value (-mgpt) is one unknown option, as typed.
    if (token.index === lastIndex) continue;
    lastIndex = token.index;
    const raw = argv[token.index] ?? "";
    if (!raw.startsWith("--") && raw.length !== 2)
      return { ok: false, error: `Unknown option ${raw}; run gyre --help to see the options.` };
    const problem = applyToken(args, token, options);
    if (problem) return { ok: false, error: problem };
    if ((token.name === "worktree" || token.name === "w") && !token.inlineValue) worktreeAt = token.index;
    if (token.name === "mode") explicitMode = token.value as Mode;
  }
  return settle(args, explicitMode);
}

type OptionToken = Extract<NonNullable<ReturnType<typeof parseTokens>["tokens"]>[number], { kind: "option" }>;

/** `table[name]` when `name` is the table's own key (never `constructor` and the like). */
function own<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Applies one flag as typed; returns the sentence for bad usage. */
function applyToken(args: CliArgs, token: OptionToken, options: ParseOptions): string | undefined {
  const { name, rawName, value, inlineValue } = token;
  if (name === "worktree" || name === "w") {
    if (inlineValue && !value) return `${rawName}= needs a name, or leave out "=" for a generated one.`;
    args.worktree = inlineValue && value ? value : true;
    return inlineValue && value ? worktreeNameProblem(value) : undefined;
  }
  const switchFlag = own(booleanFlags, name);
  if (switchFlag) {
    if (inlineValue) return `${rawName} takes no value; remove "=${value}".`;
    args[switchFlag.field] = true;
    return undefined;
  }
  const valueFlag = own(valueFlags, name);
  if (valueFlag) {
    if (value === undefined || (!inlineValue && looksLikeFlag(value)))
      return `${rawName} needs a value; see gyre --help.`;
    return applyValue(args, valueFlag.key, rawName, value);
  }
  const extensionFlag = rawName.startsWith("--") ? own(options.extensionFlags ?? {}, name) : undefined;
  if (extensionFlag === "boolean") {
    const text = value ?? "true";
    if (text !== "true" && text !== "false") return `${rawName} takes no value or true/false.`;
    args.extensionFlags[name] = text === "true";
    return undefined;
  }
  if (extensionFlag === "string") {
    if (value === undefined) return `${rawName} needs a value; see the extension's documentation.`;
    args.extensionFlags[name] = value;
    return undefined;
  }
  if (options.allowUnknownFlags && rawName.startsWith("--")) {
    args.unknownFlags.push(rawName);
    return undefined;
  }
  return `Unknown option ${rawName}; run gyre --help to see the options.`;
}

/** The mode the flags settle on, and the combinations that make no sense. */
function settle(args: CliArgs, explicitMode: Mode | undefined): ParseResult {
  if (explicitMode) args.mode = explicitMode;
  else if (args.print) args.mode = "print";
  if (args.mode === "print" && explicitMode === "print") args.print = true;
  if (args.fork && !args.continueSession && !args.session && !args.resume) {
    return { ok: false, error: "--fork copies an existing session; combine it with -c, -r or --session <id>." };
  }
  if (args.rewind === undefined && (args.restore !== undefined || args.force))
    return { ok: false, error: "--restore and --force go with --rewind <entryId>; add it or drop them." };
  if (args.rewind !== undefined && !args.continueSession && !args.session)
    return { ok: false, error: "--rewind needs the session to rewind: add --session <id> or -c." };
  if (args.noSession && (args.continueSession || args.resume || args.session)) {
    return { ok: false, error: "--no-session cannot be combined with --continue, --resume or --session; drop one." };
  }
  return { ok: true, value: args };
}

/**
 * Whether the word after a value flag is another flag (`--model -c "hi"`: the value was
 * forgotten). Values that merely start with dashes ("--- rules ---") are still taken.
 */
function looksLikeFlag(value: string): boolean {
  return builtInSpellings.has(value) || /^--[A-Za-z]/.test(value);
}

function applyValue(args: CliArgs, key: ValueFlag, name: string, value: string): string | undefined {
  switch (key) {
    case "thinking":
      if (!thinkingLevels.includes(value as ThinkingFlag)) {
        return `${name} must be one of ${thinkingLevels.join(", ")}; got "${value}".`;
      }
      args.thinking = value as ThinkingFlag;
      return undefined;
    case "models": {
      const models = value
        .split(",")
        .map((model) => model.trim())
        .filter(Boolean);
      if (models.length === 0)
        return `${name} needs a comma list of models or patterns, such as gpt-4o,claude-*; got "${value}".`;
      args.models = models;
      return undefined;
    }
    case "tools": {
      const tools = value
        .split(",")
        .map((tool) => tool.trim())
        .filter(Boolean);
      const unknown = tools.filter((tool) => !isBuiltInToolName(tool));
      if (unknown.length > 0) {
        return `Unknown tool ${unknown.join(", ")} in --tools; choose from ${BUILT_IN_TOOL_NAMES.join(",")}.`;
      }
      args.tools = tools;
      return undefined;
    }
    case "maxTurns": {
      const turns = Number(value);
      if (!Number.isInteger(turns) || turns < 1) return `${name} must be a whole number of at least 1; got "${value}".`;
      args.maxTurns = turns;
      return undefined;
    }
    case "maxCost": {
      const cost = Number(value);
      if (!Number.isFinite(cost) || cost <= 0) return `${name} must be a positive amount in USD; got "${value}".`;
      args.maxCost = cost;
      return undefined;
    }
    case "mode":
      if (!modes.includes(value as Mode) || value === "interactive") {
        return `${name} must be one of print, json, rpc; got "${value}".`;
      }
      return undefined;
    case "allowPath":
      args.allowPaths.push(value);
      return undefined;
    case "extension":
      args.extensions.push(value);
      return undefined;
    case "sandbox":
      if (value !== "workspace-write" && value !== "read-only" && value !== "off") {
        return `${name} must be one of workspace-write, read-only, off; got "${value}".`;
      }
      args.sandbox = value;
      return undefined;
    case "approval":
      if (value !== "ask" && value !== "deny" && value !== "allow") {
        return `${name} must be one of ask, deny, allow; got "${value}".`;
      }
      args.approval = value;
      return undefined;
    case "mcpConfig":
      args.mcpConfigs.push(value);
      return undefined;
    case "baseUrl":
      if (!/^https?:\/\/[^/\s]/i.test(value) || !URL.canParse(value)) {
        return `${name} must be an http:// or https:// URL such as http://127.0.0.1:8000/v1; got "${value}".`;
      }
      args.baseUrl = value;
      return undefined;
    case "restore":
      if (value !== "both" && value !== "code" && value !== "conversation")
        return `${name} must be one of code, conversation, both; got "${value}".`;
      args.restore = value;
      return undefined;
    case "rewind":
    case "provider":
    case "model":
    case "apiKey":
    case "apiKeyFile":
    case "systemPrompt":
    case "appendSystemPrompt":
    case "session":
    case "fauxScript":
    case "outputSchema":
      args[key] = value;
      return undefined;
    default: {
      const never: never = key;
      return `unhandled flag ${String(never)}`;
    }
  }
}
