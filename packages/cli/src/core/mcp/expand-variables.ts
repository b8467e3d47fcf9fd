/**
 * `${VAR}` and `${VAR:-default}` in MCP server configurations, expanded from the environment
 * the way Claude Code does, so a user's `.mcp.json` means the same thing in gyre.
 */

const variablePattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Expansion = { ok: true; value: string } | { ok: false; missing: string[] };

/**
 * Replaces every `${NAME}` with `env.NAME` and every `${NAME:-fallback}` with `env.NAME` or,
 * when that is unset or empty, `fallback`. Returns the names that had neither, instead of
 * silently inserting an empty string (a missing token would otherwise reach the server as "").
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv): Expansion {
  const missing: string[] = [];
  const value = text.replace(variablePattern, (_match, name: string, fallback: string | undefined) => {
    const current = env[name];
    if (current !== undefined && current !== "") return current;
    if (fallback !== undefined) return fallback;
    if (current !== undefined) return current;
    missing.push(name);
    return "";
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value };
}

/** Expands each value of a string record; the missing names of all of them together. */
export function expandRecord(
  record: Record<string, string>,
  env: NodeJS.ProcessEnv,
): { ok: true; value: Record<string, string> } | { ok: false; missing: string[] } {
  const value: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, text] of Object.entries(record)) {
    const expanded = expandVariables(text, env);
    if (expanded.ok) value[key] = expanded.value;
    else missing.push(...expanded.missing);
  }
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value };
}
