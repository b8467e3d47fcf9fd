import type { BeforeToolCallInput, BeforeToolCallResult } from "@gyre/agent";
import type { InputResolution } from "../extensions/resolve-input.js";
import type { GateHooks } from "../permissions/approval-gate.js";
import { HookRunner } from "./hook-runner.js";
import type { HookCommand } from "./hook-types.js";
import { type LoadedHooks, loadHooks, parseHooks } from "./load-hooks.js";
import { contextBlock, SessionHooks, type SessionHooksOptions } from "./session-hooks.js";

type BeforeToolCall = (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;

/** Where a session's hooks come from (docs/hooks.md). */
export type HookSources = {
  gyreHome: string;
  cwd: string;
  trusted: boolean;
  /** `hooks` objects of a Claude Code setup's settings files (docs/claude-compat.md), run after gyre's. */
  claudeHooks?: readonly { file: string; value: unknown }[];
};

/** The user's settings' hooks, the trusted project's, then the Claude setup's. */
export async function readHooks(sources: HookSources): Promise<LoadedHooks> {
  const loaded = await loadHooks({ gyreHome: sources.gyreHome, cwd: sources.cwd, trusted: sources.trusted });
  for (const { file, value } of sources.claudeHooks ?? []) {
    const parsed = parseHooks(value, file);
    loaded.commands.push(...parsed.commands);
    loaded.warnings.push(...parsed.warnings);
  }
  return loaded;
}

/**
 * The session's hooks from the user's settings and, once the folder is trusted, the project's
 * (docs/hooks.md). With none configured every event is one lookup that finds nothing; `/reload`
 * may add some later (`reloadSessionHooks`).
 */
export async function createSessionHooks(
  options: Omit<SessionHooksOptions, "runner"> & HookSources & { env: NodeJS.ProcessEnv },
): Promise<{ hooks: SessionHooks; warnings: string[] }> {
  const loaded = await readHooks(options);
  const runner = new HookRunner(loaded.commands, { projectDir: options.cwd, env: options.env });
  return { hooks: new SessionHooks({ ...options, runner }), warnings: loaded.warnings };
}

/** `/reload`: the hooks read again from the same places, in place of the old; one line per change. */
export async function reloadSessionHooks(hooks: SessionHooks, sources: HookSources): Promise<string[]> {
  const loaded = await readHooks(sources);
  const key = (commands: readonly HookCommand[]) =>
    JSON.stringify(commands.map((c) => [c.event, c.matcher?.source, c.command, c.timeoutSeconds]));
  const before = hooks.runner.list();
  hooks.runner.setCommands(loaded.commands);
  const events = [...new Set(loaded.commands.map((command) => command.event))];
  const changed =
    key(before) === key(loaded.commands)
      ? []
      : [`hooks: ${loaded.commands.length} command(s)${events.length > 0 ? ` (${events.join(", ")})` : ""}`];
  return [...changed, ...loaded.warnings];
}

/** What the approval gate asks the hooks. */
export function gateHooksOf(hooks: SessionHooks): GateHooks {
  return {
    verdict: (toolCallId) => hooks.gateVerdict(toolCallId),
    permissionRequest: (request, signal, willAsk) => hooks.permissionRequest(request, signal, willAsk),
  };
}

/**
 * PreToolUse before `next` (the safety gate): a blocked call goes no further, rewritten
 * arguments are what the gate checks and the tool receives.
 */
export function withPreToolUse(hooks: SessionHooks | undefined, next: BeforeToolCall): BeforeToolCall {
  if (!hooks) return next;
  return async (input, signal) => {
    if (!hooks.has("PreToolUse")) return next(input, signal);
    const hooked = await hooks.preToolUse(input, signal);
    if (hooked?.block) return hooked;
    if (!hooked?.args) return next(input, signal);
    const verdict = await next({ ...input, args: hooked.args }, signal);
    return verdict?.block ? verdict : { ...verdict, args: verdict?.args ?? hooked.args };
  };
}

/** Thrown when a UserPromptSubmit hook blocks a prompt: nothing reaches the model. */
export class PromptBlockedError extends Error {
  constructor(reason: string) {
    super(`A UserPromptSubmit hook blocked the prompt: ${reason}`);
    this.name = "PromptBlockedError";
  }
}

/**
 * UserPromptSubmit around the input path: the hook sees the prompt as typed; a block throws
 * `PromptBlockedError`, context is added below the prompt the model receives.
 */
export function withPromptHooks(
  hooks: SessionHooks | undefined,
  resolve: (text: string) => Promise<InputResolution>,
): (text: string) => Promise<InputResolution> {
  if (!hooks) return resolve;
  return async (text) => {
    if (!hooks.has("UserPromptSubmit")) return resolve(text);
    const checked = await hooks.userPromptSubmit(text);
    if (checked.blocked !== undefined) throw new PromptBlockedError(checked.blocked);
    const resolved = await resolve(text);
    if (resolved.kind !== "prompt" || checked.context.length === 0) return resolved;
    return { ...resolved, text: `${resolved.text}\n\n${contextBlock("UserPromptSubmit", checked.context)}` };
  };
}
