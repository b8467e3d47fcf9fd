/**
 * Command-line parsing for `gyre` (DESIGN §5). Pure: no I/O. Bad usage is returned as an
 * error sentence that says what to do; the caller prints it and exits 2.
 */

import { CODING_TOOL_NAMES, isCodingToolName } from "./core/tools/tool-names.js";

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
  thinking?: ThinkingFlag;
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
  allowPaths: string[];
  extensions: string[];
  noExtensions: boolean;
  trust: boolean;
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
  | "thinking"
  | "tools"
  | "systemPrompt"
  | "appendSystemPrompt"
  | "maxTurns"
  | "maxCost"
  | "session"
  | "rewind"
  | "restore"
  | "fauxScript"
  | "allowPath"
  | "extension"
  | "mode";

const valueFlags: Record<string, ValueFlag> = {
  "--provider": "provider",
  "--model": "model",
  "-m": "model",
  "--base-url": "baseUrl",
  "--api-key": "apiKey",
  "--thinking": "thinking",
  "--tools": "tools",
  "--system-prompt": "systemPrompt",
  "--append-system-prompt": "appendSystemPrompt",
  "--max-turns": "maxTurns",
  "--max-cost": "maxCost",
  "--session": "session",
  "--rewind": "rewind",
  "--restore": "restore",
  "--faux-script": "fauxScript",
  "--allow-path": "allowPath",
  "--extension": "extension",
  "-e": "extension",
  "--mode": "mode",
};

const booleanFlags: Record<string, (args: CliArgs) => void> = {
  "-p": (args) => {
    args.print = true;
  },
  "--print": (args) => {
    args.print = true;
  },
  "--no-tools": (args) => {
    args.noTools = true;
  },
  "-c": (args) => {
    args.continueSession = true;
  },
  "--continue": (args) => {
    args.continueSession = true;
  },
  "-r": (args) => {
    args.resume = true;
  },
  "--resume": (args) => {
    args.resume = true;
  },
  "--no-session": (args) => {
    args.noSession = true;
  },
  "--no-extensions": (args) => {
    args.noExtensions = true;
  },
  "--fork": (args) => {
    args.fork = true;
  },
  "--force": (args) => {
    args.force = true;
  },
  "--trust": (args) => {
    args.trust = true;
  },
  "--verbose": (args) => {
    args.verbose = true;
  },
  "--list-models": (args) => {
    args.listModels = true;
  },
  "--version": (args) => {
    args.version = true;
  },
  "-v": (args) => {
    args.version = true;
  },
  "--help": (args) => {
    args.help = true;
  },
  "-h": (args) => {
    args.help = true;
  },
};

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
    extensions: [],
    noExtensions: false,
    trust: false,
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
export const BUILT_IN_FLAG_NAMES: ReadonlySet<string> = new Set(
  [...Object.keys(valueFlags), ...Object.keys(booleanFlags)]
    .filter((flag) => flag.startsWith("--"))
    .map((flag) => flag.slice(2)),
);

/**
 * Parses `argv` (without node and script). `--flag=value` and `--flag value` both work; `--`
 * ends option parsing. The mode is settled later by `resolveMode` (stdin may imply print).
 * Extension flags need two passes: first with `allowUnknownFlags`, then, once extensions have
 * loaded, with `extensionFlags` (an unknown flag then fails as usual).
 */
export function parseArgs(argv: string[], options: ParseOptions = {}): ParseResult {
  const args = createDefaults();
  let explicitMode: Mode | undefined;
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (token === "--") {
      args.prompt.push(...argv.slice(index + 1));
      break;
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const name = eq > 0 ? token.slice(0, eq) : token;
    const setter = booleanFlags[name];
    if (setter) {
      if (eq > 0) return { ok: false, error: `${name} takes no value; remove "=${token.slice(eq + 1)}".` };
      setter(args);
      continue;
    }
    const key = valueFlags[name];
    if (key) {
      const value = eq > 0 ? token.slice(eq + 1) : argv[++index];
      if (value === undefined || (eq < 0 && looksLikeFlag(value))) {
        return { ok: false, error: `${name} needs a value; see gyre --help.` };
      }
      const problem = applyValue(args, key, name, value);
      if (problem) return { ok: false, error: problem };
      if (key === "mode") explicitMode = value as Mode;
      continue;
    }
    const extensionFlag = name.startsWith("--") ? options.extensionFlags?.[name.slice(2)] : undefined;
    if (extensionFlag === "boolean") {
      const value = eq > 0 ? token.slice(eq + 1) : "true";
      if (value !== "true" && value !== "false") return { ok: false, error: `${name} takes no value or true/false.` };
      args.extensionFlags[name.slice(2)] = value === "true";
      continue;
    }
    if (extensionFlag === "string") {
      const value = eq > 0 ? token.slice(eq + 1) : argv[++index];
      if (value === undefined) return { ok: false, error: `${name} needs a value; see the extension's documentation.` };
      args.extensionFlags[name.slice(2)] = value;
      continue;
    }
    if (options.allowUnknownFlags && name.startsWith("--") && name.length > 2) {
      args.unknownFlags.push(name);
      continue;
    }
    if (token.startsWith("-") && token.length > 1) {
      return { ok: false, error: `Unknown option ${name}; run gyre --help to see the options.` };
    }
    if (token.startsWith("@") && token.length > 1) args.fileArguments.push(token.slice(1));
    else args.prompt.push(token);
  }
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
  return value in valueFlags || value in booleanFlags || /^--[A-Za-z]/.test(value);
}

function applyValue(args: CliArgs, key: ValueFlag, name: string, value: string): string | undefined {
  switch (key) {
    case "thinking":
      if (!thinkingLevels.includes(value as ThinkingFlag)) {
        return `${name} must be one of ${thinkingLevels.join(", ")}; got "${value}".`;
      }
      args.thinking = value as ThinkingFlag;
      return undefined;
    case "tools": {
      const tools = value
        .split(",")
        .map((tool) => tool.trim())
        .filter(Boolean);
      const unknown = tools.filter((tool) => !isCodingToolName(tool));
      if (unknown.length > 0) {
        return `Unknown tool ${unknown.join(", ")} in --tools; choose from ${CODING_TOOL_NAMES.join(",")}.`;
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
    case "systemPrompt":
    case "appendSystemPrompt":
    case "session":
    case "fauxScript":
      args[key] = value;
      return undefined;
    default: {
      const never: never = key;
      return `unhandled flag ${String(never)}`;
    }
  }
}

export { helpText } from "./help-text.js";
