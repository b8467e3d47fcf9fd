import { join, resolve } from "node:path";
import type { AnyAgentTool } from "@gyre/agent";
import { CliError } from "../errors.js";
import { loadPackageResources, type PackageResources } from "../packages/package-resources.js";
import { packagesRoot } from "../packages/package-store.js";
import { pathExists } from "../path-exists.js";
import { loadPromptTemplates, type PromptTemplate, type TemplateDir } from "../prompt-templates/prompt-templates.js";
import type { RuntimeConfig } from "../runtime-config.js";
import { loadSkills, type Skill } from "../skills/load-skills.js";
import { withCappedResults } from "../tools/cap-tool-result.js";
import { createHeadlessUserInterface, type UserInterface } from "../user-interface.js";
import { ExtensionRunner } from "./extension-runner.js";
import { findExtensionFiles } from "./find-extension-files.js";
import { loadExtensions } from "./load-extensions.js";

/** What users add to gyre without forking it, loaded for one run. */
export type RuntimeResources = {
  /** Undefined when no extension loaded (the session then runs without extension hooks). */
  extensions: ExtensionRunner | undefined;
  skills: Skill[];
  templates: PromptTemplate[];
  /** Folders the file tools may read besides the workspace (skills live there). */
  readablePaths: string[];
  /** Skills that could not load, one sentence each. */
  warnings: string[];
  /** Theme files (`<name>.json`) and folders of them that installed packages bring. */
  themeFiles: string[];
};

export type LoadResourcesOptions = {
  config: Pick<RuntimeConfig, "extensions" | "mode">;
  cwd: string;
  gyreHome: string;
  /** A Claude Code setup's skill and command folders (docs/claude-compat.md); gyre's own win by name. */
  claudeDirs?: { skills: readonly string[]; commands: readonly TemplateDir[] };
  /** Whether the project folder is trusted: its `.gyre/` extensions, skills and prompts load only then. */
  trusted: boolean;
  ui?: UserInterface;
  /** Per-handler timeout (ms). */
  timeoutMs?: number;
  /** The host's own flag names (without dashes), which extensions may not register. */
  reservedFlags?: ReadonlySet<string>;
  /** Where extension failures go until the session exists (then they become session notices). */
  report: (message: string) => void;
};

/**
 * Loads extensions (`$GYRE_HOME/extensions`, the trusted project's `.gyre/extensions`, installed
 * packages', then each `-e` path; `discover: false` keeps only the given ones; in interactive
 * mode the runner exists even with none, for `/reload`), skills and prompt
 * templates (packages, user, then project; a later one wins by name). A missing given file throws a `CliError` ("bad_usage"); other load
 * errors are reported and the run goes on without that extension.
 */
export async function loadRuntimeResources(options: LoadResourcesOptions): Promise<RuntimeResources> {
  const { config, cwd } = options;
  const explicit = config.extensions.paths.map((path) => resolve(cwd, path));
  for (const path of explicit) {
    if (!(await pathExists(path)))
      throw new CliError("bad_usage", `The extension file ${path} does not exist; check the -e/--extension path.`);
  }
  const { packages, skills, templates, skillDirs, warnings } = await loadFolderResources(options);
  const discovered = await discoverExtensionFiles(options, packages.extensionFiles);
  // Interactive mode keeps a runner with none loaded, so /reload can add the first one later.
  const standby = config.mode === "interactive" && config.extensions.discover;
  let extensions: ExtensionRunner | undefined;
  if (discovered.length + explicit.length > 0 || standby) {
    extensions = new ExtensionRunner({
      cwd,
      mode: config.mode,
      ui: options.ui ?? createHeadlessUserInterface(),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      report: options.report,
    });
    for (const error of await loadExtensions(extensions, discovered, options.reservedFlags))
      extensions.report(`extension not loaded (the run goes on without it): ${error}`);
    // An extension asked for by name may be a guard: running without it would fail open.
    const [explicitError] = await loadExtensions(extensions, explicit, options.reservedFlags);
    if (explicitError)
      throw new CliError(
        "bad_usage",
        `The extension given with -e did not load: ${explicitError}; fix it or leave out the -e flag.`,
      );
    if (extensions.extensions.length === 0 && !standby) extensions = undefined;
  }
  return {
    extensions,
    skills,
    templates,
    readablePaths: skills.length > 0 ? skillDirs : [],
    warnings,
    themeFiles: packages.themeFiles,
  };
}

/** What {@link loadFolderResources} read: the installed packages, and the skills and templates of every folder. */
export type FolderResources = {
  packages: PackageResources;
  skills: Skill[];
  templates: PromptTemplate[];
  /** Every skill folder, in load order (the file tools may read them). */
  skillDirs: string[];
  /** Packages and skills that could not load, one sentence each. */
  warnings: string[];
};

/**
 * The installed packages (the user's, then the trusted project's) and the skills and prompt
 * templates of their folders, a Claude Code setup's, `$GYRE_HOME`'s and the trusted project's
 * `.gyre/`, in that order: a later folder wins by name. Start-up and `/reload` both call it, so a
 * reload sees what a restart would, whether or not extensions load. Never throws for a bad file.
 */
export async function loadFolderResources(
  options: Pick<LoadResourcesOptions, "cwd" | "gyreHome" | "trusted" | "claudeDirs">,
): Promise<FolderResources> {
  const { cwd, gyreHome, trusted } = options;
  const projectDir = join(cwd, ".gyre");
  const packages = await loadPackageResources([
    packagesRoot({ gyreHome }),
    ...(trusted ? [packagesRoot({ project: cwd })] : []),
  ]);
  const claude = options.claudeDirs;
  const skillDirs = [
    ...packages.skillDirs,
    ...(claude?.skills ?? []),
    join(gyreHome, "skills"),
    ...(trusted ? [join(projectDir, "skills")] : []),
  ];
  const { skills, warnings } = await loadSkills(skillDirs);
  const templates = await loadPromptTemplates([
    ...packages.promptDirs,
    ...(claude?.commands ?? []),
    join(gyreHome, "prompts"),
    ...(trusted ? [join(projectDir, "prompts")] : []),
  ]);
  return { packages, skills, templates, skillDirs, warnings: [...packages.warnings, ...warnings] };
}

/**
 * The extension files found in `$GYRE_HOME/extensions`, the trusted project's `.gyre/extensions`
 * and installed packages (`packageFiles`, or looked up again when not given), in load order;
 * none with `discover: false`. `/reload` calls it again to find extensions added since start.
 */
export async function discoverExtensionFiles(
  options: Pick<LoadResourcesOptions, "config" | "cwd" | "gyreHome" | "trusted">,
  packageFiles?: readonly string[],
): Promise<string[]> {
  const { config, cwd, gyreHome, trusted } = options;
  if (!config.extensions.discover) return [];
  const fromPackages =
    packageFiles ??
    (await loadPackageResources([packagesRoot({ gyreHome }), ...(trusted ? [packagesRoot({ project: cwd })] : [])]))
      .extensionFiles;
  return [
    ...(await findExtensionFiles(join(gyreHome, "extensions"))),
    ...(trusted ? await findExtensionFiles(join(cwd, ".gyre", "extensions")) : []),
    ...fromPackages,
  ];
}

/** Whether any extension could load (so unknown flags may yet be registered ones). Cheap: lists two folders. */
export async function mayLoadExtensions(options: {
  extensions: RuntimeConfig["extensions"];
  cwd: string;
  gyreHome: string;
}): Promise<boolean> {
  if (options.extensions.paths.length > 0) return true;
  if (!options.extensions.discover) return false;
  const folders = [join(options.gyreHome, "extensions"), join(options.cwd, ".gyre", "extensions")];
  for (const folder of folders) if ((await findExtensionFiles(folder)).length > 0) return true;
  const roots = [packagesRoot({ gyreHome: options.gyreHome }), packagesRoot({ project: options.cwd })];
  return (await loadPackageResources(roots)).extensionFiles.length > 0;
}

/** Built-in tools with extension tools applied: same name replaces (in place), new names are added. */
export function mergeTools(builtIns: readonly AnyAgentTool[], extensionTools: readonly AnyAgentTool[]): AnyAgentTool[] {
  // Extension tools get the truncation built-ins apply to themselves (C11: 1 MB went to the model whole).
  const capped = extensionTools.map(withCappedResults);
  const byName = new Map(capped.map((tool) => [tool.name, tool]));
  const merged = builtIns.map((tool) => byName.get(tool.name) ?? tool);
  const builtInNames = new Set(builtIns.map((tool) => tool.name));
  return [...merged, ...capped.filter((tool) => !builtInNames.has(tool.name))];
}
