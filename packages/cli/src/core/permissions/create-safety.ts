/**
 * Puts the safety pieces together for a run (docs/design/safety.md): the bash sandbox from `--sandbox`,
 * `--allow-network` and the `sandbox` settings; the permission rules; and the approval gate with
 * the right way to ask for the mode. Plan mode switches both the gate and the sandbox.
 */
import { homedir } from "node:os";
import type { Settings } from "../config/settings.js";
import type { RuntimeConfig } from "../runtime-config.js";
import { type BashSandbox, createBashSandbox } from "../sandbox/bash-sandbox.js";
import type { SandboxMode } from "../sandbox/types.js";
import type { ApprovalAnswer, ApprovalRequest, UserInterface } from "../user-interface.js";
import { type ApprovalGate, type ApprovalMode, createApprovalGate, type GateHooks } from "./approval-gate.js";
import { approvalSettingsFile, saveApprovedRules, suggestApprovalRules } from "./approval-rules.js";
import { createRuleSet, type PermissionRules } from "./permission-rules.js";
import { createReadDenyFilter, type ReadDenyFilter, readDenyPatterns } from "./read-deny.js";

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
  /** What the `read(...)` deny rules refuse, for grep, find and ls (undefined when there are none). */
  readDenied(): Promise<ReadDenyFilter | undefined>;
  /** Applies permission rules read again (`/reload`) to the next call. */
  setPermissions(permissions: PermissionRules & { approved?: string[] }): void;
  /** Allow rules that hold as the user's approval until replaced (a command's `allowed-tools`, for its prompt); none: `[]`. */
  setPromptApproval(rules: readonly string[]): void;
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
  /** Whether the project's settings are read: "Yes, always" saves there, else in the user's. */
  trusted?: boolean;
  /** Stops the run (Esc at the approval question). */
  stopRun?: () => void;
};

function defaultApproval(mode: RuntimeConfig["mode"]): ApprovalMode {
  return mode === "print" || mode === "json" ? "deny" : "ask";
}

/**
 * Asks through the ui: its own `approve` (RPC), else a select + input dialog when a person is
 * there. Esc stops the run; "No" declines; "No, and say why" sends a reason to the model;
 * "Yes, always" offers the suggested rule for editing before it is saved (`saveTo` names where).
 */
function createAsker(ui: UserInterface | undefined, saveTo: string) {
  if (!ui) return undefined;
  if (ui.approve) return (request: ApprovalRequest, signal: AbortSignal) => ui.approve!({ ...request, signal });
  if (!ui.interactive) return undefined;
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    const rules = (await suggestApprovalRules(request.toolName, request.args)).join(" ");
    const once = "Yes, once";
    const always = `Yes, always: ${rules}`;
    const no = "No";
    const noWhy = "No, and tell the model why";
    const title = `Allow ${request.toolName}? ${request.reason}`;
    const choice = await ui.select({ title, options: [once, always, no, noWhy], signal });
    if (choice === undefined) return { decision: "deny", stop: true };
    if (choice === once) return { decision: "allow" };
    if (choice === always) {
      const edited = await ui.input({
        title: `Rule(s) to save in ${saveTo} (Enter keeps ${rules}; Esc allows once)`,
        placeholder: rules,
        signal,
      });
      if (edited === undefined) return { decision: "allow" };
      const chosen = edited.trim() ? edited.trim() : rules;
      return { decision: "allow_always", rules: chosen.split(/\s+(?=[\w*-]+(?:\(|$))/) };
    }
    if (choice === no) return { decision: "deny" };
    const reason = await ui.input({ title: "Why not? (sent to the model)", signal });
    return { decision: "deny", ...(reason ? { reason } : {}) };
  };
}

/** Builds the safety of a run. Starts nothing: the sandbox starts with the first command. */
export function createSafety(options: SafetyOptions): Safety {
  const { config, settings, cwd, gyreHome, env } = options;
  const sandboxSettings = settings.sandbox ?? {};
  const chosen: SandboxMode = config.sandbox ?? sandboxSettings.mode ?? "workspace-write";
  const homeDir = env.HOME ?? homedir();
  const deniedPatterns = readDenyPatterns(settings.permissions ?? {});
  let readDenied: Promise<ReadDenyFilter | undefined> | undefined;
  const sandbox = createBashSandbox({
    mode: config.plan ? "read-only" : chosen,
    policy: {
      cwd,
      writableRoots: [...options.allowPaths, ...(sandboxSettings.writableRoots ?? [])],
      protectedPaths: sandboxSettings.protectedPaths ?? [],
      denyRead: sandboxSettings.denyRead ?? [],
      denyReadPatterns: deniedPatterns,
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
  const saveTo = approvalSettingsFile({ cwd, gyreHome, trusted: options.trusted === true });
  let permissions: PermissionRules & { approved?: string[] } = settings.permissions ?? {};
  let promptApproved: readonly string[] = [];
  const compile = () => ({
    rules: createRuleSet(permissions, { cwd, homeDir }),
    approved: createRuleSet({ allow: [...(permissions.approved ?? []), ...promptApproved] }, { cwd, homeDir }),
  });
  const setPermissions = (next: typeof permissions) => {
    permissions = next;
    // grep, find and ls apply the new read() deny rules at once; bash's masks are set when its sandbox starts.
    readDenied = undefined;
    const compiled = compile();
    gate.setRules(compiled.rules, compiled.approved);
  };
  const gate = createApprovalGate(
    {
      ...compile(),
      approval,
      ask: createAsker(options.ui, saveTo),
      protectedFiles: { cwd, homeDir, gyreHome, extra: sandboxSettings.protectedPaths ?? [] },
      // Saved, applied at once, and said where: the same call is not asked again (docs/safety.md).
      saveAllowRule: async (rules) => {
        await saveApprovedRules(saveTo, rules);
        setPermissions({ ...permissions, approved: [...new Set([...(permissions.approved ?? []), ...rules])] });
        options.ui?.notify(`Saved ${rules.join(", ")} to permissions.approved in ${saveTo}.`, "info");
      },
      ...(options.stopRun ? { stopRun: options.stopRun } : {}),
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
    readDenied: () => {
      readDenied ??= createReadDenyFilter(readDenyPatterns(permissions), { cwd, homeDir });
      return readDenied;
    },
    setPermissions,
    setPromptApproval: (rules) => {
      promptApproved = [...rules];
      const compiled = compile();
      gate.setRules(compiled.rules, compiled.approved);
    },
    startupWarning: async () => {
      const probe = await sandbox.availability();
      if (!probe || probe.available) return undefined;
      return `The bash sandbox is unavailable: ${probe.cause}. Bash commands will fail until you fix it: ${probe.fix}.`;
    },
  };
}
