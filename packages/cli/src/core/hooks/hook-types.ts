/**
 * Hooks: shell commands the user configures to run on lifecycle events, with Claude Code's event
 * names, stdin JSON and output contract (docs/hooks.md).
 */

/** Every event a hook can be configured for. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
  "PermissionRequest",
  "WorktreeCreate",
  "WorktreeRemove",
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Events whose hooks decide whether a tool call runs: a hook that fails there blocks the call. */
export const GATE_EVENTS: ReadonlySet<HookEvent> = new Set(["PreToolUse", "PermissionRequest"]);

/** Seconds a hook runs at most when its entry names no `timeout`. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 600;

/** One configured command, with the matcher of the group it came from. */
export type HookCommand = {
  event: HookEvent;
  /** Anchored regular expression over the event's target (tool name, source, trigger…); undefined matches all. */
  matcher: RegExp | undefined;
  command: string;
  timeoutSeconds: number;
  /** The settings file it was read from (for messages). */
  source: string;
};

/** The stdin object every hook gets: common fields plus the event's own. */
export type HookInput = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEvent;
  permission_mode?: string;
  [field: string]: unknown;
};

/** The JSON a hook may print on stdout with exit code 0 (fields gyre reads). */
export type HookJsonOutput = {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
    decision?: { behavior?: string; message?: string; updatedInput?: Record<string, unknown> };
  };
};

/** How one command ended. */
export type HookRun = {
  command: HookCommand;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Why it did not end by itself with an exit code: a timeout, a signal, a spawn failure. */
  failure?: string;
  durationMs: number;
};

/** What the hooks of one event decided, together. */
export type HookOutcome = {
  /** Set when a hook blocked (exit 2, `decision: "block"`, a deny, or a failed gate): the reason. */
  blocked?: string;
  /** The strictest permission decision any hook gave (deny > ask > allow). */
  permissionDecision?: "allow" | "deny" | "ask";
  permissionReason?: string;
  updatedInput?: Record<string, unknown>;
  /** Text for the model (additionalContext, or plain stdout where the contract says so). */
  context: string[];
  /** `continue: false`: the run stops; the reason is for the user. */
  stop?: string;
  /** For the user: system messages and non-blocking errors. */
  messages: string[];
  /** How many commands ran. */
  ran: number;
};
