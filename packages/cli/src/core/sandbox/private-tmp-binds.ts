/**
 * A sandboxed helper program (a language server, docs/lsp.md#the-servers-sandbox) sees a private,
 * empty /tmp. A program installed under /tmp (an npm prefix or a checkout in a temp folder) would
 * vanish behind it, so the folders its command and path arguments live in stay in view, read-only.
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, sep } from "node:path";

/**
 * The folders under /tmp to bind read-only for `paths` (the command found on the host, and its
 * arguments that are absolute paths): for a path inside a `node_modules` folder, the outermost
 * such folder (the package's dependencies resolve there); else the path's own folder. Both the
 * path as given and its real path count (an npm `bin/` link points into `lib/node_modules`).
 */
export async function privateTmpBinds(paths: readonly string[]): Promise<string[]> {
  const folders = new Set<string>();
  for (const path of paths.filter((candidate) => isAbsolute(candidate))) {
    const real = await realpath(path).catch(() => undefined);
    for (const each of real && real !== path ? [path, real] : [path]) {
      if (!each.startsWith(`/tmp${sep}`)) continue;
      const marker = `${sep}node_modules${sep}`;
      const at = each.indexOf(marker);
      folders.add(at === -1 ? dirname(each) : each.slice(0, at + marker.length - 1));
    }
  }
  // A folder inside another one bound already adds nothing.
  const sorted = [...folders].sort((a, b) => a.length - b.length);
  return sorted.filter((folder, index) => !sorted.slice(0, index).some((outer) => folder.startsWith(outer + sep)));
}

/** `bwrapArgs` with a read-only bind of each folder right after the private /tmp is mounted. */
export function withReadOnlyBinds(bwrapArgs: readonly string[], folders: readonly string[]): string[] {
  const at = bwrapArgs.findIndex((arg, index) => arg === "--tmpfs" && bwrapArgs[index + 1] === "/tmp");
  if (at === -1 || folders.length === 0) return [...bwrapArgs];
  const binds = folders.flatMap((folder) => ["--ro-bind", folder, folder]);
  return [...bwrapArgs.slice(0, at + 2), ...binds, ...bwrapArgs.slice(at + 2)];
}
