// Step one of start-up (docs/design/session.md); create-runtime.ts re-exports it beside step two.
import { isClaudeCompat, loadClaudeSetup, withClaudeRules } from "./claude-compat/claude-compat.js";
import { loadSettings, type Settings } from "./config/settings.js";
import { loadRuntimeResources } from "./extensions/load-runtime-resources.js";
import { inspectProject, type RuntimeNotice, resolveGyreHome } from "./inspect-project.js";
import { installSettingsPackages } from "./packages/startup-install.js";
import type { RuntimeConfig } from "./runtime-config.js";
import type { RuntimeBase, RuntimeIo } from "./runtime-types.js";

/** Start-up waits this long in all for packages the `packages` setting names (core/packages/startup-install.ts). */
const packagesStartupWaitMs = 20_000;

/**
 * Step one of start-up: `$GYRE_HOME`, the project and its trust, settings, then extensions,
 * skills and templates (in that order: trust decides which settings and extensions load).
 * Throws a `CliError` with a sentence that says what to do.
 */
export async function loadRuntimeBase(config: RuntimeConfig, io: RuntimeIo): Promise<RuntimeBase> {
  const home = await resolveGyreHome(io.env);
  const project = await inspectProject({
    cwd: io.cwd,
    home,
    trust: config.trust,
    ...(io.ui && config.mode === "interactive" ? { ui: io.ui } : {}),
  });
  const loaded = await loadSettings({ gyreHome: home, cwd: io.cwd, includeProject: project.trusted });
  const settings: Settings = { ...loaded.settings, ...config.settings };
  const notices: RuntimeNotice[] = [...project.notices];
  const claude = isClaudeCompat(config.claudeCompat, settings.claudeCompat)
    ? await loadClaudeSetup({
        cwd: io.cwd,
        env: io.env,
        trusted: project.trusted,
        loadedContextFiles: project.contextFiles,
      })
    : undefined;
  if (claude) {
    project.contextFiles.push(...claude.contextFiles);
    settings.permissions = withClaudeRules(settings.permissions, claude);
    notices.push(...claude.warnings.map((text): RuntimeNotice => ({ level: "problem", text })));
  }
  // Problems, so quiet headless runs show them too: a setting not applied, a package (not) installed.
  const problems = (texts: string[]) =>
    notices.push(...texts.map((text): RuntimeNotice => ({ level: "problem", text })));
  problems(loaded.warnings);
  const installs = {
    gyreHome: home,
    cwd: io.cwd,
    trusted: project.trusted,
    namedAnywhere: (settings.packages?.length ?? 0) > 0,
    env: io.env,
    deadline: Date.now() + packagesStartupWaitMs,
    ...(io.ui ? { announce: (text: string) => io.ui?.notify(text, "info") } : {}),
  };
  problems(await installSettingsPackages({ ...installs, kind: "user" }));
  const timeout = Number(io.env.GYRE_EXTENSION_TIMEOUT_MS);
  const resources = await loadRuntimeResources({
    config,
    cwd: io.cwd,
    gyreHome: home,
    trusted: project.trusted,
    ...(io.ui ? { ui: io.ui } : {}),
    ...(io.reservedFlags ? { reservedFlags: io.reservedFlags } : {}),
    ...(claude ? { claudeDirs: { skills: claude.setup.skillDirs, commands: claude.setup.commandDirs } } : {}),
    ...(Number.isFinite(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
    // Extension failures are shown even in quiet headless runs: the user asked for the extension.
    report: (text) => notices.push({ level: "problem", text }),
  });
  notices.push(...resources.warnings.map((text): RuntimeNotice => ({ level: "warning", text })));
  // After loading: a project's new packages wait for the folder to be trusted again.
  problems(await installSettingsPackages({ ...installs, kind: "project" }));
  return { home, project, settings, resources, notices, ...(claude ? { claude } : {}) };
}
