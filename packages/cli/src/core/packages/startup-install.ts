/**
 * Packages named in the `packages` setting but not installed yet are installed at start-up, once
 * (a source that installed is skipped from then on). The user's settings install into
 * `$GYRE_HOME/packages/` and load in the same run; a trusted project's own settings install into
 * its `.gyre/packages/`, which load only after the folder is trusted again (the installed files
 * are part of its fingerprint, and nobody approved them yet). An untrusted project installs
 * nothing.
 *
 * Start-up waits for the installs at most `timeoutMs` in all (default 20 s): a slow one goes on
 * in the background and loads from the next start. A failed one (offline, a bad source) is a
 * notice and the run goes on without it; start-up tries it again only after an hour, so an
 * offline machine does not pay npm's retries at every start (`gyre install` retries at once).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readSettingsFile } from "../config/settings.js";
import { parsePackageSource } from "./package-source.js";
import { installPackage, isSourceInstalled, packagesRoot } from "./package-store.js";

/** What one scope installs: its root, the sources its settings name, where relative paths start. */
export type StartupInstallScope = {
  kind: "user" | "project";
  root: string;
  sources: readonly string[];
  baseDir: string;
};

export type StartupInstallOptions = {
  scope: StartupInstallScope;
  /** Where failures are remembered; outside the project (its files are what trust covers). */
  failuresFile: string;
  env: NodeJS.ProcessEnv;
  /** Start-up stops waiting at this time (ms since the epoch); installs still running go on. */
  deadline: number;
  /** Says at once that installing starts (it may take a while); the outcome comes as notices. */
  announce?: (message: string) => void;
  now?: () => number;
};

/** After a failure, start-up leaves a source alone this long. */
export const retryAfterMs = 3_600_000;

/** By `<root> <source>`: the same source may fail for one scope and not another. */
type Failures = Record<string, { at: number; error: string }>;

/** Installs the scope's missing sources; resolves with one sentence per outcome for the user. */
export async function installMissingPackages(options: StartupInstallOptions): Promise<string[]> {
  const { scope } = options;
  const now = options.now ?? Date.now;
  const failures = await readFailures(options.failuresFile);
  const missing: string[] = [];
  for (const text of new Set(scope.sources)) {
    const failed = failures[`${scope.root} ${text}`];
    if (failed && now() - failed.at < retryAfterMs) continue;
    if (!(await isSourceInstalled(scope.root, text))) missing.push(text);
  }
  if (missing.length === 0) return [];
  const where = scope.kind === "user" ? "your settings" : "the project's settings";
  options.announce?.(
    `Installing ${missing.length === 1 ? "1 package" : `${missing.length} packages`} from the packages setting of ${where} (${missing.join(", ")})…`,
  );
  const notices: string[] = [];
  const all = installAll(missing, options, failures, notices);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, options.deadline - now()));
  });
  const outcome = await Promise.race([all.then(() => "done" as const), late]);
  clearTimeout(timer);
  if (outcome === "late")
    notices.push(
      `Installing packages from the packages setting is taking long; it goes on in the background and they load from the next start (${missing.join(", ")}).`,
    );
  return [...notices];
}

/** One at a time: npm locks the prefix, and each install records its source when it is done. */
async function installAll(
  missing: string[],
  options: StartupInstallOptions,
  failures: Failures,
  notices: string[],
): Promise<void> {
  const { scope } = options;
  const now = options.now ?? Date.now;
  for (const text of missing) {
    try {
      const source = parsePackageSource(text, scope.baseDir);
      const installed = await installPackage({ root: scope.root, source, env: options.env });
      delete failures[`${scope.root} ${text}`];
      notices.push(
        scope.kind === "user"
          ? `Installed ${installed.name} ${installed.version} from the packages setting (${text}).`
          : `Installed ${installed.name} ${installed.version} into the project's .gyre/packages/ (${text}); it loads once you trust the folder again on the next start, since its files changed.`,
      );
    } catch (error) {
      const message = (error as Error).message;
      failures[`${scope.root} ${text}`] = { at: now(), error: message };
      notices.push(
        `Could not install ${text} from the packages setting: ${message}${offlineHint(message)} The run goes on without it; start-up tries again in an hour, gyre install${scope.kind === "project" ? " --project" : ""} now.`,
      );
    }
  }
  // Losing this file costs only an earlier retry.
  await mkdir(dirname(options.failuresFile), { recursive: true })
    .then(() => writeFile(options.failuresFile, `${JSON.stringify(failures, null, 2)}\n`))
    .catch(() => {});
}

function offlineHint(message: string): string {
  return /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|offline/i.test(message)
    ? " (npm could not reach the registry: offline?)."
    : message.endsWith(".")
      ? ""
      : ".";
}

async function readFailures(file: string): Promise<Failures> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Failures;
  } catch {
    return {};
  }
}

/**
 * Installs what one scope's settings file names in `packages` (the project's only when trusted);
 * resolves with the notices. Reads nothing more when `namedAnywhere` is false (the merged
 * settings name no packages), so start-up without packages does not grow.
 */
export async function installSettingsPackages(options: {
  kind: "user" | "project";
  gyreHome: string;
  cwd: string;
  trusted: boolean;
  namedAnywhere: boolean;
  env: NodeJS.ProcessEnv;
  deadline: number;
  announce?: (message: string) => void;
}): Promise<string[]> {
  if (!options.namedAnywhere || (options.kind === "project" && !options.trusted)) return [];
  const file =
    options.kind === "user" ? join(options.gyreHome, "settings.json") : join(options.cwd, ".gyre", "settings.json");
  const sources = (await readSettingsFile(file).catch(() => undefined))?.settings.packages ?? [];
  if (sources.length === 0) return [];
  return installMissingPackages({
    scope: {
      kind: options.kind,
      root: packagesRoot(options.kind === "user" ? { gyreHome: options.gyreHome } : { project: options.cwd }),
      sources,
      // A relative path means the same folder whichever project gyre starts in.
      baseDir: options.kind === "user" ? options.gyreHome : options.cwd,
    },
    failuresFile: join(options.gyreHome, "package-install-failures.json"),
    env: options.env,
    deadline: options.deadline,
    ...(options.announce ? { announce: options.announce } : {}),
  });
}
