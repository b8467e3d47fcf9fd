/**
 * The `sandbox` and `permissions` settings blocks (docs/design/safety.md) as schemas. Both are closed: a typo
 * there is an error at start-up, never a silently weaker sandbox (elsewhere unknown keys only warn).
 */
import { type Static, Type } from "@sinclair/typebox";
import { parseRule } from "../permissions/permission-rules.js";
import { SANDBOX_MODES } from "../sandbox/types.js";

const stringList = Type.Array(Type.String());
const ruleList = Type.Array(Type.String(), { expected: 'a list of rules such as "bash(git diff:*)"' });

/** `sandbox`: what bash commands may touch. */
export const sandboxSettingsSchema = Type.Object(
  {
    mode: Type.Optional(Type.Union(SANDBOX_MODES.map((mode) => Type.Literal(mode)))),
    network: Type.Optional(Type.Boolean()),
    allowedDomains: Type.Optional(stringList),
    writableRoots: Type.Optional(stringList),
    protectedPaths: Type.Optional(stringList),
    denyRead: Type.Optional(stringList),
    /** Names of more environment variables bash inherits, beyond the built-in allowlist. */
    passEnv: Type.Optional(Type.Array(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }))),
  },
  { additionalProperties: false },
);

/** `permissions`: allow / ask / deny rule lists for tool calls. */
export const permissionSettingsSchema = Type.Object(
  {
    allow: Type.Optional(ruleList),
    ask: Type.Optional(ruleList),
    deny: Type.Optional(ruleList),
    /** The user's "Yes, always" answers: they beat ask rules, never deny rules (docs/safety.md). */
    approved: Type.Optional(ruleList),
  },
  { additionalProperties: false },
);

/** The `sandbox` block as loaded (derived from `sandboxSettingsSchema`). */
export type SandboxSettings = Static<typeof sandboxSettingsSchema>;

/**
 * Rule syntax a schema cannot say: each broken rule of a `permissions` block that already has the
 * right shape, as `/permissions/deny/0 "bash(rm" is not a rule; …`.
 */
export function checkPermissionRuleSyntax(value: unknown, path = "/permissions"): string[] {
  if (!value || typeof value !== "object") return [];
  const problems: string[] = [];
  for (const [kind, rules] of Object.entries(value)) {
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule, index) => {
      if (typeof rule !== "string") return;
      const parsed = parseRule(rule);
      if (!parsed.ok) problems.push(`${path}/${kind}/${index}: ${parsed.error}`);
    });
  }
  return problems;
}
