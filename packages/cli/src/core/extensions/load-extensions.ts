import { resolve } from "node:path";
import { pathExists } from "../path-exists.js";
import { createExtensionApi } from "./create-extension-api.js";
import type { ExtensionRunner } from "./extension-runner.js";
import { describeLoadError, importExtensionModule } from "./import-extension-module.js";
import { startStallWatchdog, watchExtension } from "./stall-watchdog.js";

/**
 * Loads each extension file into `runner`, in order: imports it and calls its default export
 * with its API. A file that fails to import or whose factory throws (or hangs past the
 * runner's timeout) is left out; the returned errors name its file and line.
 */
export async function loadExtensions(
  runner: ExtensionRunner,
  paths: readonly string[],
  reservedFlags: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  const errors: string[] = [];
  const seen = new Set<string>();
  if (paths.length > 0) await startStallWatchdog();
  for (const raw of paths) {
    const path = resolve(runner.cwd, raw);
    if (seen.has(path)) continue;
    seen.add(path);
    if (!(await pathExists(path))) {
      errors.push(`${path}: no such extension file.`);
      continue;
    }
    const unwatch = watchExtension(path, "import");
    const imported = await importExtensionModule(path).finally(unwatch);
    if (!imported.ok) {
      errors.push(imported.error);
      continue;
    }
    const extension = runner.addExtension(path);
    let failure: string | undefined;
    const outcome = await runner.invoke(extension, "load", async (_context) => {
      try {
        await imported.factory(createExtensionApi(runner, extension, reservedFlags));
      } catch (error) {
        failure = describeLoadError(error, path);
      }
    });
    if (failure || !outcome.ok) {
      runner.extensions.splice(runner.extensions.indexOf(extension), 1);
      if (failure) errors.push(failure);
    }
  }
  return errors;
}
