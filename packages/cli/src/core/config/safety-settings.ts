/**
 * Validation of the `sandbox` and `permissions` settings blocks (DESIGN §8): a typo or a wrong
 * type is a clear sentence at start-up, never a silently weaker sandbox.
 */
import { checkRules, type PermissionRules } from "../permissions/permission-rules.js";
import { SANDBOX_MODES, type SandboxMode } from "../sandbox/types.js";

export type SandboxSettings = {
  mode?: SandboxMode;
  network?: boolean;
  allowedDomains?: string[];
  writableRoots?: string[];
  protectedPaths?: string[];
  denyRead?: string[];
};

const sandboxFields: Record<keyof SandboxSettings, "mode" | "boolean" | "string[]"> = {
  mode: "mode",
  network: "boolean",
  allowedDomains: "string[]",
  writableRoots: "string[]",
  protectedPaths: "string[]",
  denyRead: "string[]",
};

const isStringList = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

/** The problem with a `sandbox` block, or undefined when it is valid. */
export function checkSandboxSettings(value: Record<string, unknown>): string | undefined {
  for (const [field, fieldValue] of Object.entries(value)) {
    const kind = sandboxFields[field as keyof SandboxSettings];
    if (!kind) return `"sandbox.${field}" is not a sandbox setting; use ${Object.keys(sandboxFields).join(", ")}.`;
    if (kind === "mode" && !SANDBOX_MODES.includes(fieldValue as SandboxMode)) {
      return `"sandbox.mode" must be one of ${SANDBOX_MODES.join(", ")}.`;
    }
    if (kind === "boolean" && typeof fieldValue !== "boolean") return `"sandbox.${field}" must be true or false.`;
    if (kind === "string[]" && !isStringList(fieldValue)) return `"sandbox.${field}" must be a list of strings.`;
  }
  return undefined;
}

/** The problem with a `permissions` block, or undefined when it is valid. */
export function checkPermissionSettings(value: Record<string, unknown>): string | undefined {
  for (const [field, fieldValue] of Object.entries(value)) {
    if (field !== "allow" && field !== "ask" && field !== "deny") {
      return `"permissions.${field}" is not a rule list; use allow, ask or deny.`;
    }
    if (!isStringList(fieldValue)) return `"permissions.${field}" must be a list of rules such as "bash(git diff:*)".`;
  }
  return checkRules(value as PermissionRules);
}
