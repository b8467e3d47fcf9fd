/**
 * `gyre install`, `gyre list`, `gyre remove`, `gyre update`: extension, skill, prompt and theme
 * packages in `$GYRE_HOME/packages/` or, with `--project`, the trusted project's
 * `.gyre/packages/` (core/packages). Loaded only when one of these words starts the command line.
 */
import { resolve } from "node:path";
import { loadSettings } from "../../core/config/settings.js";
import { describePackage } from "../../core/packages/package-resources.js";
import { parsePackageSource } from "../../core/packages/package-source.js";
import {
  type InstalledPackage,
  installPackage,
  isSourceInstalled,
  listPackages,
  packagesRoot,
  removePackage,
  updatePackages,
} from "../../core/packages/package-store.js";
import { getProjectTrustState } from "../../core/trust.js";
import { parseCommandWords } from "../usage-error.js";

export type PackageCommandIo = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  gyreHome: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
};

export const packageHelpText = `Usage:
  gyre install <source>… [--project] [--allow-scripts]   npm:<pkg>[@version], git:<url>[@ref], or a local path
  gyre install [--project]                               every source in the "packages" setting not installed yet
  gyre list [--project]                                  installed packages and what each brings
  gyre remove <name>… [--project]
  gyre update [<name>…] [--project]

Packages go into $GYRE_HOME/packages/ (--project: this folder's .gyre/packages/, only when the folder
is trusted) with their dependencies; install scripts do not run unless --allow-scripts. A package
brings extensions, skills, prompts and themes from its package.json "gyre" field or from folders of
those names; they load at start-up like your own.
`;

type Parsed = { words: string[]; project: boolean; allowScripts: boolean };

/** The words after the verb (node:util parseArgs, strict); a string is the one-sentence error. */
function parseWords(words: string[], verb: string): Parsed | string {
  const parsed = parseCommandWords(verb, words, {
    project: { type: "boolean", short: "l" },
    "allow-scripts": { type: "boolean" },
  });
  if (!parsed.ok) return parsed.error;
  const { values, positionals } = parsed.value;
  return { words: positionals, project: values.project === true, allowScripts: values["allow-scripts"] === true };
}

/** Runs one package command; the exit code (0 ok, 1 failed, 2 bad usage). */
export async function runPackageCommand(verb: string, words: string[], io: PackageCommandIo): Promise<number> {
  const fail = (message: string, code: 1 | 2) => {
    io.stderr.write(`gyre: ${message}\n`);
    return code;
  };
  const parsed = parseWords(words, verb);
  if (typeof parsed === "string") return fail(parsed, 2);
  if (
    parsed.project &&
    (await getProjectTrustState({ gyreHome: io.gyreHome, cwd: io.cwd, fingerprint: "" })) === "untrusted"
  )
    return fail(
      `${io.cwd} is not trusted, so nothing is installed into its .gyre/packages/; run gyre in it and approve it first, or leave out --project.`,
      2,
    );
  const root = packagesRoot(parsed.project ? { project: io.cwd } : { gyreHome: io.gyreHome });
  try {
    switch (verb) {
      case "install":
        return await install(root, parsed, io);
      case "list":
        return await list(parsed.project ? [root] : [root, packagesRoot({ project: io.cwd })], io);
      case "remove":
        if (parsed.words.length === 0) return fail("Usage: gyre remove <name>… [--project].", 2);
        for (const name of parsed.words) {
          await removePackage(root, name, io.env);
          io.stdout.write(`Removed ${name} from ${root}.\n`);
        }
        return 0;
      default: {
        const { before, after } = await updatePackages(root, parsed.words, io.env);
        for (const entry of after) {
          const old = before.find((candidate) => candidate.name === entry.name)?.version;
          io.stdout.write(
            old === entry.version
              ? `${entry.name} ${entry.version} (unchanged)\n`
              : `${entry.name} ${old} → ${entry.version}\n`,
          );
        }
        if (after.length === 0) io.stdout.write(`No packages installed in ${root}.\n`);
        return 0;
      }
    }
  } catch (error) {
    return fail((error as Error).message, 1);
  }
}

async function install(root: string, parsed: Parsed, io: PackageCommandIo): Promise<number> {
  let sources = parsed.words;
  if (sources.length === 0) {
    const { settings } = await loadSettings({ gyreHome: io.gyreHome, cwd: io.cwd, includeProject: parsed.project });
    sources = [];
    for (const source of settings.packages ?? []) if (!(await isSourceInstalled(root, source))) sources.push(source);
    if (sources.length === 0) {
      io.stdout.write('Nothing to install: give a source, or list sources in the "packages" setting.\n');
      return 0;
    }
  }
  for (const text of sources) {
    const source = parsePackageSource(text, io.cwd);
    const installed = await installPackage({ root, source, env: io.env, allowScripts: parsed.allowScripts });
    io.stdout.write(`Installed ${installed.name} ${installed.version} into ${root} (${await summarize(installed)}).\n`);
  }
  if (parsed.project)
    io.stdout.write("The project's files changed, so gyre asks to trust this folder again on its next run.\n");
  return 0;
}

async function list(roots: string[], io: PackageCommandIo): Promise<number> {
  let count = 0;
  for (const root of roots) {
    const installed = await listPackages(root);
    if (installed.length === 0) continue;
    io.stdout.write(`${root}:\n`);
    for (const entry of installed) {
      io.stdout.write(
        `  ${entry.name} ${entry.version}  ${shownSource(root, entry.source)}  (${await summarize(entry)})\n`,
      );
      count++;
    }
  }
  if (count === 0)
    io.stdout.write("No packages installed. Add one with gyre install npm:<name>, git:<url> or a path.\n");
  return 0;
}

async function summarize(entry: InstalledPackage): Promise<string> {
  const found = await describePackage(entry.dir, entry.name);
  const parts = [
    [found.extensions.length, "extension"],
    [found.skills.length, "skill folder"],
    [found.prompts.length, "prompt folder"],
    [found.themes.length, "theme"],
  ] as const;
  const named = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}${n === 1 ? "" : "s"}`);
  const themes = found.themes.length > 0 ? "; themes are not applied yet" : "";
  return `${named.join(", ") || "nothing gyre loads"}${themes}`;
}

/** npm records a path as `file:` relative to the packages folder; the user reads the absolute path. */
function shownSource(root: string, source: string): string {
  return source.startsWith("file:") ? resolve(root, source.slice("file:".length)) : source;
}
