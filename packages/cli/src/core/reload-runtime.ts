/**
 * `/reload`: the start-up steps that read files, run again on a live runtime — settings, skills,
 * prompt templates, context files (AGENTS.md), a Claude Code setup, extensions — without a restart. What changed is
 * put in place (the same arrays and runner the session already uses, so its input resolver and
 * hooks see the new ones), the tools and system prompt are rebuilt from it, and each change
 * comes back as one line.
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { AgentSession } from "./agent-session.js";
import { isClaudeCompat, type LoadedClaudeSetup, loadClaudeSetup } from "./claude-compat/claude-compat.js";
import { loadSettings, type Settings } from "./config/settings.js";
import type { ExtensionRunner } from "./extensions/extension-runner.js";
import { loadExtensions } from "./extensions/load-extensions.js";
import { loadFolderResources } from "./extensions/load-runtime-resources.js";
import type { ProjectInfo } from "./inspect-project.js";
import type { PromptTemplate } from "./prompt-templates/prompt-templates.js";
import type { Skill } from "./skills/load-skills.js";
import { isGyreHomeContextFile, loadContextFiles } from "./system-prompt/context-files.js";

/** The live runtime's parts `/reload` reads again or rebuilds. */
export type ReloadTarget = {
  session: AgentSession;
  gyreHome: string;
  cwd: string;
  project: ProjectInfo;
  /** The runtime's settings object: updated in place. */
  settings: Settings;
  /** Settings given on the command line, which still win over the files. */
  overrides: Settings;
  skills: Skill[];
  templates: PromptTemplate[];
  extensions: ExtensionRunner | undefined;
  /** The extension files to load now: those discovered again (new ones too) and the `-e` ones. */
  findExtensions: () => Promise<string[]>;
  /** Puts the reloaded extension tools in with the run's other tools; returns the run's tool list. */
  applyTools: (extensionTools: readonly AnyAgentTool[]) => readonly AnyAgentTool[];
  rebuildSystemPrompt: (tools: readonly AnyAgentTool[], extensionTools: readonly AnyAgentTool[]) => Promise<string>;
  /** `--claude-compat` as given; with the reloaded `claudeCompat` setting it says whether a Claude Code setup is read. */
  claudeCompat: boolean | undefined;
  env: NodeJS.ProcessEnv;
};

/** What `/reload` did: one line per change, and the Claude Code setup read again (undefined when off). */
export type ReloadResult = { changes: string[]; claude: LoadedClaudeSetup | undefined };

/** Reloads what `target` names. Not while the agent works (the caller checks); returns one line per change. */
export async function reloadRuntime(target: ReloadTarget): Promise<ReloadResult> {
  const changes: string[] = [];
  const { trusted } = target.project;
  const loaded = await loadSettings({ gyreHome: target.gyreHome, cwd: target.cwd, includeProject: trusted });
  const settings: Settings = { ...loaded.settings, ...target.overrides };
  const changedKeys = [...new Set([...Object.keys(settings), ...Object.keys(target.settings)])].filter(
    (key) => JSON.stringify(settings[key as keyof Settings]) !== JSON.stringify(target.settings[key as keyof Settings]),
  );
  for (const key of Object.keys(target.settings)) delete target.settings[key as keyof Settings];
  Object.assign(target.settings, settings);
  if (changedKeys.length > 0) changes.push(`settings: ${changedKeys.join(", ")} changed`);
  changes.push(...loaded.warnings);

  const gyreContextFiles = (await loadContextFiles({ cwd: target.cwd, gyreHome: target.gyreHome })).filter(
    (file) => trusted || isGyreHomeContextFile(file.path, target.gyreHome),
  );
  // The Claude Code setup's files, read again as at start-up (docs/claude-compat.md).
  const claude = isClaudeCompat(target.claudeCompat, settings.claudeCompat)
    ? await loadClaudeSetup({ cwd: target.cwd, env: target.env, trusted, loadedContextFiles: gyreContextFiles })
    : undefined;
  changes.push(...(claude?.warnings ?? []));

  // The installed packages are read again too: a reload loads what a restart would.
  const folders = await loadFolderResources({
    cwd: target.cwd,
    gyreHome: target.gyreHome,
    trusted,
    ...(claude ? { claudeDirs: { skills: claude.setup.skillDirs, commands: claude.setup.commandDirs } } : {}),
  });
  changes.push(...replaceNamed("skills", target.skills, folders.skills), ...folders.warnings);
  changes.push(...replaceNamed("prompt templates", target.templates, folders.templates));

  const contextFiles = [...gyreContextFiles, ...(claude?.contextFiles ?? [])];
  const contextChange = describeContextChange(target.project, contextFiles);
  target.project.contextFiles = contextFiles;
  if (contextChange) changes.push(contextChange);

  const extensionTools = target.extensions
    ? await reloadExtensions(target.extensions, await target.findExtensions(), changes)
    : [];
  const tools = target.applyTools(extensionTools);
  target.session.setSystemPrompt(await target.rebuildSystemPrompt(tools, extensionTools));
  return { changes, claude };
}

/** Replaces `current`'s contents with `next`; says what was added, removed or updated by name. */
function replaceNamed<T extends { name: string; filePath: string }>(what: string, current: T[], next: T[]): string[] {
  const before = new Map(current.map((item) => [item.name, JSON.stringify(item)]));
  const added = next.filter((item) => !before.has(item.name)).map((item) => `+${item.name}`);
  const removed = current
    .filter((item) => !next.some((other) => other.name === item.name))
    .map((item) => `-${item.name}`);
  const updated = next
    .filter((item) => before.has(item.name) && before.get(item.name) !== JSON.stringify(item))
    .map((item) => `~${item.name}`);
  current.splice(0, current.length, ...next);
  const all = [...added, ...removed, ...updated];
  return all.length > 0 ? [`${what}: ${all.join(" ")}`] : [];
}

function describeContextChange(project: ProjectInfo, next: { path: string; content: string }[]): string | undefined {
  const key = (files: readonly { path: string; content: string }[]) =>
    JSON.stringify(files.map((file) => [file.path, file.content]));
  if (key(project.contextFiles) === key(next)) return undefined;
  return `context files: ${next.map((file) => file.path).join(", ") || "none"}`;
}

/**
 * Loads `paths` (the extensions found now, added ones too), fresh, into the same runner: the
 * session stays bound to it, so even a runner that started empty gets working hooks.
 */
async function reloadExtensions(runner: ExtensionRunner, paths: string[], changes: string[]): Promise<AnyAgentTool[]> {
  const before = runner.extensions.map((extension) => extension.path);
  await runner.emit({ type: "session_shutdown" });
  runner.extensions.splice(0, runner.extensions.length);
  const errors = await loadExtensions(runner, paths);
  for (const error of errors) changes.push(`extension not reloaded (the run goes on without it): ${error}`);
  const { sessionId, sessionFile } = runner.boundHost
    ? { sessionId: runner.boundHost.sessionId(), sessionFile: runner.boundHost.sessionFile() }
    : { sessionId: "", sessionFile: undefined };
  await runner.emit({ type: "session_start", sessionId, sessionFile, cwd: runner.cwd });
  const added = paths.filter((path) => !before.includes(path)).map((path) => `+${path}`);
  const removed = before.filter((path) => !paths.includes(path)).map((path) => `-${path}`);
  const which = [...added, ...removed].length > 0 ? ` (${[...added, ...removed].join(" ")})` : "";
  if (paths.length + before.length > 0)
    changes.push(`extensions: reloaded ${runner.extensions.length} of ${paths.length}${which}`);
  return runner.getTools();
}
