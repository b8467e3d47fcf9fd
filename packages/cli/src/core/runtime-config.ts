import type { ThinkingLevel } from "@gyre/ai";
import type { ExtensionMode } from "./extensions/types.js";
import type { CodingToolName } from "./tools/tool-names.js";

/** Which session a run continues. */
export type SessionChoice =
  /** A new session file in `$GYRE_HOME/sessions`. */
  | { kind: "new" }
  /** Nothing written (`--no-session`). */
  | { kind: "memory" }
  /** The newest session of the folder (a new one if there is none); `fork` continues in a copy. */
  | { kind: "continue"; fork: boolean }
  /** The session a path or id prefix names; `fork` continues in a copy. */
  | { kind: "open"; pathOrId: string; fork: boolean };

/**
 * What a run is asked to be, as plain data: what `createRuntime` needs, whoever builds it (the
 * CLI maps its flags to this; an embedder writes one). Unset fields fall back to settings.json
 * and then the built-in defaults.
 */
export type RuntimeConfig = {
  mode: ExtensionMode;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  thinking?: ThinkingLevel;
  /** Built-in tools to enable, or "none"; default: settings, then `DEFAULT_TOOL_NAMES`. */
  tools?: readonly CodingToolName[] | "none";
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** Budgets given for this run; settings fill the rest. */
  budgets: { maxTurns?: number; maxCostUsd?: number };
  session: SessionChoice;
  /** Extension files to load besides the discovered ones; `discover: false` loads only `paths`. */
  extensions: { paths: readonly string[]; discover: boolean };
  /** Folders outside the workspace the file tools may use. */
  allowPaths: readonly string[];
  /** Trust the project folder without asking. */
  trust: boolean;
  /** The faux provider's script (tests and demos). */
  fauxScript?: string;
};
