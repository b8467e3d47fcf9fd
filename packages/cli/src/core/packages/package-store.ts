/**
 * The installed packages of one scope: an npm prefix (`$GYRE_HOME/packages/`, or a trusted
 * project's `.gyre/packages/`) whose `package.json` lists what the user installed and whose
 * `node_modules/` holds each package with its dependencies. npm does the work (with
 * `--ignore-scripts` unless asked otherwise), so installs are reproducible from the lock file.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PackageSource } from "./package-source.js";

/** One installed package as `gyre list` shows it. */
export type InstalledPackage = { name: string; version: string; source: string; dir: string };

/** The prefix folder of a scope. */
export function packagesRoot(scope: { gyreHome: string } | { project: string }): string {
  return "project" in scope ? join(scope.project, ".gyre", "packages") : join(scope.gyreHome, "packages");
}

/** The prefix's package.json; `gyreSources` remembers which source text installed which package. */
type Manifest = {
  name: string;
  private: true;
  dependencies?: Record<string, string>;
  gyreSources?: Record<string, string>;
};

async function readManifest(root: string): Promise<Manifest> {
  try {
    return JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Manifest;
  } catch {
    return { name: "gyre-packages", private: true };
  }
}

/** Runs npm in `root`; rejects with npm's last stderr lines when it fails. */
export function runNpm(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const child = spawn(npm, [...args, "--prefix", root, "--no-audit", "--no-fund", "--loglevel", "error"], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on("error", (error) => reject(new Error(`npm could not start: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`npm ${args[0]} failed (exit ${code}): ${lastLines(stderr)}`));
    });
  });
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-5).join(" ").trim() || "no error output";
}

/**
 * Installs `source` with its dependencies; resolves with the package's name. Scripts stay off
 * unless `allowScripts` (a package's install script would run code at install time).
 */
export async function installPackage(options: {
  root: string;
  source: PackageSource;
  env: NodeJS.ProcessEnv;
  allowScripts?: boolean;
}): Promise<InstalledPackage> {
  const { root, source } = options;
  await mkdir(root, { recursive: true });
  const before = await readManifest(root);
  if (!before.dependencies) await writeFile(join(root, "package.json"), `${JSON.stringify(before, null, 2)}\n`);
  const flags = [
    "--save",
    ...(options.allowScripts ? [] : ["--ignore-scripts"]),
    // A local folder is copied, not linked: the installed files are what trust covers.
    ...(source.kind === "path" || source.spec.startsWith("/") ? ["--install-links"] : []),
  ];
  await runNpm(root, ["install", ...flags, source.spec], options.env);
  const after = await readManifest(root);
  const name =
    Object.keys(after.dependencies ?? {}).find((key) => before.dependencies?.[key] !== after.dependencies?.[key]) ??
    Object.keys(after.dependencies ?? {}).find((key) => !(key in (before.dependencies ?? {})));
  const installed = (await listPackages(root)).find((entry) => entry.name === name);
  if (!installed) throw new Error(`npm installed ${source.text}, but gyre cannot find which package it was.`);
  after.gyreSources = { ...after.gyreSources, [source.text]: installed.name };
  await writeFile(join(root, "package.json"), `${JSON.stringify(after, null, 2)}\n`);
  return installed;
}

/** Whether `text` (as written in the packages setting) installed a package that is still installed. */
export async function isSourceInstalled(root: string, text: string): Promise<boolean> {
  const name = (await readManifest(root)).gyreSources?.[text];
  return (
    name !== undefined && (await listPackages(root)).some((entry) => entry.name === name && entry.version !== "missing")
  );
}

/** The packages the user installed in `root` (not their dependencies), by name. */
export async function listPackages(root: string): Promise<InstalledPackage[]> {
  const manifest = await readManifest(root);
  const found: InstalledPackage[] = [];
  for (const [name, source] of Object.entries(manifest.dependencies ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const dir = join(root, "node_modules", name);
    const version = await readFile(join(dir, "package.json"), "utf8")
      .then((text) => String((JSON.parse(text) as { version?: unknown }).version ?? "?"))
      .catch(() => "missing");
    found.push({ name, version, source, dir });
  }
  return found;
}

/** Removes the package `name`; rejects with a sentence when it is not installed there. */
export async function removePackage(root: string, name: string, env: NodeJS.ProcessEnv): Promise<void> {
  const installed = await listPackages(root);
  if (!installed.some((entry) => entry.name === name)) {
    throw new Error(
      `No package "${name}" is installed in ${root}; installed: ${installed.map((entry) => entry.name).join(", ") || "(none)"}.`,
    );
  }
  await runNpm(root, ["uninstall", "--save", "--ignore-scripts", name], env);
}

/** Updates `names` (default: all) within what their specs allow; git sources move to their ref's newest commit. */
export async function updatePackages(
  root: string,
  names: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ before: InstalledPackage[]; after: InstalledPackage[] }> {
  const before = await listPackages(root);
  const unknown = names.filter((name) => !before.some((entry) => entry.name === name));
  if (unknown.length > 0) throw new Error(`Not installed in ${root}: ${unknown.join(", ")}.`);
  const chosen = names.length > 0 ? before.filter((entry) => names.includes(entry.name)) : before;
  if (chosen.length > 0) {
    // `npm install <spec>` again re-resolves a git ref and a range; `npm update` would skip git sources.
    const specs = chosen.map((entry) =>
      /^(git|file:|\/)/.test(entry.source) ? entry.source : `${entry.name}@${entry.source}`,
    );
    await runNpm(root, ["install", "--save", "--ignore-scripts", ...specs], env);
  }
  return { before, after: await listPackages(root) };
}
