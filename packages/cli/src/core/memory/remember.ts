/**
 * Memory (docs/memory.md): a line the user asks gyre to remember (`#` in the TUI, the `remember`
 * op) is appended to a context file, the project's `AGENTS.md` or the user's
 * `$GYRE_HOME/AGENTS.md`, which the next run's system prompt reads again.
 */
import { appendFile, mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fingerprintProject } from "../project-fingerprint.js";
import { loadContextFiles } from "../system-prompt/context-files.js";
import { carryTrustOver } from "../trust.js";

export type MemoryScope = "project" | "user";

export const MEMORY_SCOPES: readonly MemoryScope[] = ["project", "user"];

export type RememberResult = {
  path: string;
  scope: MemoryScope;
  /** Whether the file was created by this call. */
  created: boolean;
  /** Whether the next run's context holds it (a project file of an untrusted folder does not). */
  inContext: boolean;
};

export type MemoryPlace = { cwd: string; gyreHome: string };

/**
 * The file a scope's memory goes to: the folder's `AGENTS.md`, or its `CLAUDE.md` when only that
 * one exists (a new AGENTS.md would hide it from the context), else a new `AGENTS.md`.
 */
export async function memoryFile(scope: MemoryScope, place: MemoryPlace): Promise<string> {
  const dir = scope === "project" ? place.cwd : place.gyreHome;
  const agents = join(dir, "AGENTS.md");
  if (await isFile(agents)) return agents;
  const claude = join(dir, "CLAUDE.md");
  return (await isFile(claude)) ? claude : agents;
}

/**
 * Appends `text` as a list item to the scope's file. A remembered trust of the project follows
 * the user's own edit (the next start does not ask again). `refresh` re-reads the context files
 * into the system prompt; it says whether the file is in the context.
 */
export async function remember(
  place: MemoryPlace,
  request: { text: string; scope: MemoryScope },
  refresh: () => Promise<readonly string[]>,
): Promise<RememberResult> {
  const text = request.text.replace(/\s+/g, " ").trim();
  if (!text) throw new Error("Nothing to remember: the text is empty.");
  if (!MEMORY_SCOPES.includes(request.scope))
    throw new Error(`Memory scope must be "project" or "user", not "${String(request.scope)}".`);
  const path = await memoryFile(request.scope, place);
  const before = await readFile(path, "utf8").catch(() => undefined);
  const append = async () => {
    if (request.scope === "user") await mkdir(place.gyreHome, { recursive: true });
    const separator = before === undefined || before === "" || before.endsWith("\n") ? "" : "\n";
    await appendFile(path, `${separator}- ${text.replace(/^[-*]\s+/, "")}\n`, { mode: 0o644 });
  };
  await (request.scope === "project" ? keepingTrust(place, append) : append());
  const loaded = await refresh();
  return { path, scope: request.scope, created: before === undefined, inContext: loaded.includes(path) };
}

/**
 * Runs `edit` (the user's own change to the project's context files: a memory line, `/memory`),
 * then moves a remembered trust of the folder to the files as they are after it.
 */
export async function keepingTrust<T>(place: MemoryPlace, edit: () => Promise<T>): Promise<T> {
  const fingerprint = () =>
    loadContextFiles(place).then((contextFiles) => fingerprintProject({ ...place, contextFiles }));
  const from = await fingerprint();
  const result = await edit();
  await carryTrustOver({ gyreHome: place.gyreHome, cwd: place.cwd, from, to: await fingerprint() });
  return result;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
