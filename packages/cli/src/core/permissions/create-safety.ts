/**
 * Puts the safety pieces together for a run (DESIGN §8): the bash sandbox from `--sandbox`,
 * `--allow-network` and the `sandbox` settings; the permission rules; and the approval gate with
 * the right way to ask for the mode. Plan mode switches both the gate and the sandbox.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Settings } from "../config/settings.js";
import type { RuntimeConfig } from "../runtime-config.js";
import { type BashSandbox, createBashSandbox } from "../sandbox/bash-sandbox.js";
import type { SandboxMode } from "../sandbox/types.js";
import type { ApprovalAnswer, ApprovalRequest, UserInterface } from "../user-interface.js";
import {
  type ApprovalGate,
  type ApprovalMode,
  createApprovalGate,
  type GateHooks,
  suggestAllowRule,
} from "./approval-gate.js";
import { createRuleSet } from "./permission-rules.js";

export type Safety = {
  gate: ApprovalGate;
  sandbox: BashSandbox;
  approval: ApprovalMode;
  /** Leaves or enters plan mode: read-only sandbox and write/edit withheld, or back to the chosen mode. */
  setPlanMode(on: boolean): Promise<void>;
  /** "plan" or "default". */
  permissionMode(): PermissionMode;
  /** Called after each switch of plan mode (the session withholds tools, the footer redraws). Returns the unsubscribe. */
  onModeChange(listener: (mode: PermissionMode) => void): () => void;
  /** The sandbox level in one line, for the footer, the JSON header and RPC state. */
  describeSandbox(): Promise<string>;
  /** The start-up notice when the sandbox cannot run, else undefined. */
  startupWarning(): Promise<string | undefined>;
};

/** The permission modes Shift+Tab cycles through and `set_permission_mode` sets. */
export type PermissionMode = "default" | "plan";

export type SafetyOptions = {
  config: RuntimeConfig;
  settings: Settings;
  cwd: string;
  gyreHome: string;
  env: NodeJS.ProcessEnv;
  ui: UserInterface | undefined;
  /** Extra writable roots (`--allow-path`, `allowedPaths`). */
  allowPaths: readonly string[];
  /** The user's PreToolUse verdicts and PermissionRequest hooks (docs/hooks.md). */
  gateHooks?: GateHooks;
};

function defaultApproval(mode: RuntimeConfig["mode"]): ApprovalMode {
  return mode === "print" || mode === "json" ? "deny" : "ask";
}

/** Asks through the ui: its own `approve` (RPC), else a select + input dialog when a person is there. */
function createAsker(ui: UserInterface | undefined) {
  if (!ui) return undefined;
  if (ui.approve) return (request: ApprovalRequest, signal: AbortSignal) => ui.approve!({ ...request, signal });
  if (!ui.interactive) return undefined;
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    const rule = suggestAllowRule(request.toolName, request.args);
    const once = "Yes, once";
    const always = `Yes, always (add allow rule ${rule} to .gyre/settings.json)`;
    const title = `Allow ${request.toolName}? ${request.reason}`;
    const choice = await ui.select({ title, options: [once, always, "No"], signal });
    if (choice === once) return { decision: "allow" };
    if (choice === always) return { decision: "allow_always" };
    const reason = await ui.input({ title: "Why not? (sent to the model; empty to skip)", signal });
    return { decision: "deny", ...(reason ? { reason } : {}) };
  };
}

/** Appends `rule` to `<cwd>/.gyre/settings.json` (creating it), keeping every other setting. */
export async function saveProjectAllowRule(cwd: string, rule: string): Promise<void> {
  const file = join(cwd, ".gyre", "settings.json");
  const text = await readFile(file, "utf8").catch(() => "{}");
  const settings = JSON.parse(text) as Settings;
  const permissions = settings.permissions ?? {};
  if (!(permissions.allow ?? []).includes(rule)) permissions.allow = [...(permissions.allow ?? []), rule];
  settings.permissions = permissions;
  await mkdir(join(cwd, ".gyre"), { recursive: true });
  await writeFile(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/** Builds the safety of a run. Starts nothing: the sandbox starts with the first command. */
export function createSafety(options: SafetyOptions): Safety {
  const { config, settings, cwd, gyreHome, env } = options;
  const sandboxSettings = settings.sandbox ?? {};
  const chosen: SandboxMode = config.sandbox ?? sandboxSettings.mode ?? "workspace-write";
  const homeDir = env.HOME ?? homedir();
  const sandbox = createBashSandbox({
    mode: config.plan ? "read-only" : chosen,
    policy: {
      cwd,
      writableRoots: [...options.allowPaths, ...(sandboxSettings.writableRoots ?? [])],
      protectedPaths: sandboxSettings.protectedPaths ?? [],
      denyRead: sandboxSettings.denyRead ?? [],
      network: config.allowNetwork === true || sandboxSettings.network === true,
      allowedDomains: sandboxSettings.allowedDomains ?? [],
      gyreHome,
      homeDir,
      hostEnv: env,
      maxProcesses: 1024,
      maxMemoryMb: 8192,
    },
  });
  const approval = config.approval ?? settings.approval ?? defaultApproval(config.mode);
  const gate = createApprovalGate(
    {
      rules: createRuleSet(settings.permissions ?? {}, { cwd, homeDir }),
      approval,
      ask: createAsker(options.ui),
      protectedFiles: { cwd, homeDir, gyreHome, extra: sandboxSettings.protectedPaths ?? [] },
      saveAllowRule: (rule) => saveProjectAllowRule(cwd, rule),
      ...(options.gateHooks ? { hooks: options.gateHooks } : {}),
    },
    config.plan === true,
  );
  const listeners = new Set<(mode: PermissionMode) => void>();
  const permissionMode = (): PermissionMode => (gate.isPlanMode() ? "plan" : "default");
  return {
    gate,
    sandbox,
    approval,
    setPlanMode: async (on) => {
      gate.setPlanMode(on);
      await sandbox.setMode(on ? "read-only" : chosen);
      for (const listener of listeners) listener(permissionMode());
    },
    permissionMode,
    onModeChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    describeSandbox: () => sandbox.describe(),
    startupWarning: async () => {
      const probe = await sandbox.availability();
      if (!probe || probe.available) return undefined;
      return `The bash sandbox is unavailable: ${probe.cause}. Bash commands will fail until you fix it: ${probe.fix}.`;
    },
  };
}
