import type { BeforeToolCallInput, BeforeToolCallResult } from "@gyre/agent";
import type { InputResolution } from "../extensions/resolve-input.js";
import type { GateHooks } from "../permissions/approval-gate.js";
import { HookRunner } from "./hook-runner.js";
import { loadHooks, parseHooks } from "./load-hooks.js";
import { SessionHooks, type SessionHooksOptions } from "./session-hooks.js";

type BeforeToolCall = (input: BeforeToolCallInput, signal: AbortSignal) => Promise<BeforeToolCallResult | undefined>;

/**
 * The session's hooks from the user's settings and, once the folder is trusted, the project's
 * (docs/hooks.md); undefined when none is configured, so a run without hooks pays nothing.
 */
export async function createSessionHooks(
  options: Omit<SessionHooksOptions, "runner"> & {
    gyreHome: string;
    trusted: boolean;
    env: NodeJS.ProcessEnv;
    /** `hooks` objects of a Claude Code setup's settings files (docs/claude-compat.md), run after gyre's. */
    claudeHooks?: readonly { file: string; value: unknown }[];
  },
): Promise<{ hooks: SessionHooks | undefined; warnings: string[] }> {
  const loaded = await loadHooks({ gyreHome: options.gyreHome, cwd: options.cwd, trusted: options.trusted });
  for (const { file, value } of options.claudeHooks ?? []) {
    const parsed = parseHooks(value, file);
    loaded.commands.push(...parsed.commands);
    loaded.warnings.push(...parsed.warnings);
  }
  if (loaded.commands.length === 0) return { hooks: undefined, warnings: loaded.warnings };
  const runner = new HookRunner(loaded.commands, { projectDir: options.cwd, env: options.env });
  return { hooks: new SessionHooks({ ...options, runner }), warnings: loaded.warnings };
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
  if (!hooks?.has("PreToolUse")) return next;
  return async (input, signal) => {
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
  if (!hooks?.has("UserPromptSubmit")) return resolve;
  return async (text) => {
    const checked = await hooks.userPromptSubmit(text);
    if (checked.blocked !== undefined) throw new PromptBlockedError(checked.blocked);
    const resolved = await resolve(text);
    if (resolved.kind !== "prompt" || checked.context.length === 0) return resolved;
    return { ...resolved, text: `${resolved.text}\n\n${contextBlock("UserPromptSubmit", checked.context)}` };
  };
}

/** Hook context as the model receives it: tagged, so it is not mistaken for the user's words. */
export function contextBlock(event: string, context: readonly string[]): string {
  return `<hook-context event="${event}">\n${context.join("\n")}\n</hook-context>`;
}
