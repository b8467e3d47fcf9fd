// The safety step of start-up (create-runtime.ts): the user's shell hooks, then the sandbox,
// rules and approval gate that consult them.
import { createSessionHooks, gateHooksOf } from "./hooks/create-session-hooks.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import { createSafety, type Safety } from "./permissions/create-safety.js";
import type { RuntimeConfig } from "./runtime-config.js";
import type { RuntimeBase } from "./runtime-types.js";
import type { UserInterface } from "./user-interface.js";

/** What the safety step reads; `session` and `stopRun` reach the session once it exists. */
export type RuntimeSafetyInput = {
  config: RuntimeConfig;
  base: Pick<RuntimeBase, "home" | "project" | "settings" | "claude">;
  cwd: string;
  env: NodeJS.ProcessEnv;
  ui: UserInterface | undefined;
  /** The session's id and file, for the hooks' input. */
  session: () => { id: string; file: string | undefined };
  /** Stops the run in progress (a hook or the sandbox asked to). */
  stopRun: () => void;
};

/** The session's hooks (docs/hooks.md) and safety (docs/design/safety.md), with the hooks' load warnings. */
export async function createRuntimeSafety(
  input: RuntimeSafetyInput,
): Promise<{ hooks: SessionHooks; hookWarnings: string[]; safety: Safety }> {
  const { config, base, cwd, env } = input;
  const { home, project, settings } = base;
  // The user's shell hooks (docs/hooks.md); a project's only once its folder is trusted.
  const { hooks, warnings } = await createSessionHooks({
    gyreHome: home,
    cwd,
    trusted: project.trusted,
    env,
    session: input.session,
    permissionMode: () => safety.permissionMode(),
    claudeHooks: base.claude?.hooks ?? [],
  });
  const safety = createSafety({
    config,
    settings,
    cwd,
    gyreHome: home,
    env,
    ui: input.ui,
    allowPaths: [...config.allowPaths, ...(settings.allowedPaths ?? [])],
    ...(hooks ? { gateHooks: gateHooksOf(hooks) } : {}),
    trusted: project.trusted,
    stopRun: input.stopRun,
  });
  return { hooks, hookWarnings: warnings, safety };
}
