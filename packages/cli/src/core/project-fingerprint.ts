/**
 * What a trust decision covers: every file a trusted project applies. Trust is asked again when
 * any of them changes, so a pull or a model's write cannot widen what an earlier "yes" allowed.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fingerprintExtensionFiles } from "./extensions/find-extension-files.js";
import { listPackages, packagesRoot } from "./packages/package-store.js";
import type { ContextFile } from "./system-prompt/context-files.js";
import { isGyreHomeContextFile } from "./system-prompt/context-files.js";

/**
 * A hash of the project's `.gyre/` folder (settings, SYSTEM.md, APPEND_SYSTEM.md, prompts,
 * skills, extensions, installed packages), of its `.claude/` folder (hooks, rules, commands, agents
 * and skills that `--claude-compat` applies: a changed hook must not run on an old "yes",
 * docs/claude-compat.md) and of its context files (AGENTS.md/CLAUDE.md from the root down to `cwd`,
 * the user's own `$GYRE_HOME` file excluded). Reads only regular files, each within a bound.
 */
const EMPTY_FOLDER = createHash("sha256").digest("hex");

export async function fingerprintProject(options: {
  cwd: string;
  gyreHome: string;
  contextFiles: readonly ContextFile[];
}): Promise<string> {
  const hash = createHash("sha256");
  hash.update(await fingerprintExtensionFiles(join(options.cwd, ".gyre")));
  const claude = await fingerprintExtensionFiles(join(options.cwd, ".claude"));
  // Only a folder with files adds to the hash, so trusts given before `.claude/` counted still hold.
  if (claude !== EMPTY_FOLDER) hash.update(`\0.claude\0${claude}`);
  // Installed packages live under node_modules, which the walk above skips; each one's own files
  // count here (their dependencies are pinned by .gyre/packages/package-lock.json, hashed above).
  for (const installed of await listPackages(packagesRoot({ project: options.cwd }))) {
    hash.update(`\0package\0${installed.name}\0${await fingerprintExtensionFiles(installed.dir)}`);
  }
  for (const file of options.contextFiles) {
    if (isGyreHomeContextFile(file.path, options.gyreHome)) continue;
    hash.update(`\0${file.path}\0${file.content}`);
  }
  return hash.digest("hex");
}
