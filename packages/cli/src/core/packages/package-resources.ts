/**
 * What an installed package brings: extensions, skills, prompt templates and themes. A package
 * names them in its package.json under `"gyre": { "extensions": [...], "skills": [...],
 * "prompts": [...], "themes": [...] }` (paths inside the package), or keeps them in the folders
 * of those names at its root. Paths that leave the package are refused.
 */
import { readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { findExtensionFiles } from "../extensions/find-extension-files.js";
import { listPackages } from "./package-store.js";

export type PackageResources = {
  extensionFiles: string[];
  skillDirs: string[];
  promptDirs: string[];
  themeFiles: string[];
  /** One sentence per package entry that could not be used. */
  warnings: string[];
};

const kinds = ["extensions", "skills", "prompts", "themes"] as const;
type Kind = (typeof kinds)[number];

/** The resources of every package installed under each of `roots`, in order. */
export async function loadPackageResources(roots: readonly string[]): Promise<PackageResources> {
  const resources: PackageResources = {
    extensionFiles: [],
    skillDirs: [],
    promptDirs: [],
    themeFiles: [],
    warnings: [],
  };
  for (const root of roots) {
    for (const installed of await listPackages(root)) {
      if (installed.version === "missing") {
        resources.warnings.push(
          `The package ${installed.name} is listed in ${root} but not installed; run gyre update ${installed.name}.`,
        );
        continue;
      }
      const found = await describePackage(installed.dir, installed.name);
      resources.extensionFiles.push(...found.extensions);
      resources.skillDirs.push(...found.skills);
      resources.promptDirs.push(...found.prompts);
      resources.themeFiles.push(...found.themes);
      resources.warnings.push(...found.warnings);
    }
  }
  return resources;
}

/** One package's resources by kind (extension entries expanded to files). */
export async function describePackage(
  dir: string,
  name: string,
): Promise<Record<Kind, string[]> & { warnings: string[] }> {
  const manifest = await readFile(join(dir, "package.json"), "utf8")
    .then((text) => JSON.parse(text) as { gyre?: Partial<Record<Kind, unknown>> })
    .catch(() => ({}) as { gyre?: Partial<Record<Kind, unknown>> });
  const result = {
    extensions: [] as string[],
    skills: [] as string[],
    prompts: [] as string[],
    themes: [] as string[],
    warnings: [] as string[],
  };
  for (const kind of kinds) {
    const declared = manifest.gyre?.[kind];
    const entries = Array.isArray(declared) ? declared.map(String) : [kind];
    for (const entry of entries) {
      const path = resolve(dir, entry);
      if (relative(dir, path).startsWith("..")) {
        result.warnings.push(`The package ${name} names ${entry} outside itself; it was not loaded.`);
        continue;
      }
      const info = await stat(path).catch(() => undefined);
      if (!info) {
        if (Array.isArray(declared)) result.warnings.push(`The package ${name} names ${entry}, which does not exist.`);
        continue;
      }
      if (kind === "extensions")
        result.extensions.push(...(info.isDirectory() ? await findExtensionFiles(path) : [path]));
      else result[kind].push(path);
    }
  }
  return result;
}
