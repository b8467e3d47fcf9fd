/**
 * Small file tools for the seed demos (the real coding tools live in the CLI). Both are confined
 * to a working directory: a path that resolves outside it is refused.
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";

/** Lines a single read returns; the rest is reached with `offset`. */
export const READ_LINE_LIMIT = 100;

/**
 * Resolves `path` against `cwd` and returns the absolute path, or throws when it leaves `cwd`.
 * Compares with a trailing separator so `/proj-secret` is not inside `/proj`.
 */
export function resolveInside(cwd: string, path: string): string {
  const root = resolve(cwd);
  const target = resolve(root, path);
  if (target !== root && !target.startsWith(root.endsWith(sep) ? root : root + sep))
    throw new Error(
      `Refused: "${path}" resolves outside the working directory. Only files inside it are accessible; use a path relative to it.`,
    );
  return target;
}

/** Also follows symlinks: a link inside `cwd` that points outside is refused too. */
async function resolveExisting(cwd: string, path: string): Promise<string> {
  const target = resolveInside(cwd, path);
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    throw new Error(
      `"${path}" does not exist in the working directory. Check the path; it is relative to the working directory.`,
    );
  }
  const root = await realpath(cwd);
  if (real !== root && !real.startsWith(root + sep))
    throw new Error(`Refused: "${path}" is a link that leads outside the working directory.`);
  return real;
}

const readParameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the working directory." }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to read (1-based)." })),
  },
  { additionalProperties: false },
);

/** `read_file`: returns up to READ_LINE_LIMIT lines, with a notice saying how to read on. */
export function createReadFileTool(options: { cwd: string }): AgentTool<typeof readParameters> {
  return {
    name: "read_file",
    label: "Read file",
    description: `Reads a text file inside the working directory, ${READ_LINE_LIMIT} lines at a time.`,
    parameters: readParameters,
    execute: async ({ path, offset = 1 }) => {
      const file = await resolveExisting(options.cwd, path);
      const lines = (await readFile(file, "utf8")).split("\n");
      if (lines.at(-1) === "") lines.pop();
      const shown = lines.slice(offset - 1, offset - 1 + READ_LINE_LIMIT);
      const last = offset - 1 + shown.length;
      const notice =
        last < lines.length
          ? `\n[Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to continue.]`
          : "";
      return { content: [{ type: "text", text: shown.join("\n") + notice }], details: { lines: lines.length } };
    },
  };
}

const writeParameters = Type.Object(
  {
    path: Type.String({ description: "File path relative to the working directory." }),
    content: Type.String({ description: "The whole new content of the file." }),
  },
  { additionalProperties: false },
);

/** `write`: creates or replaces a file inside the working directory. */
export function createWriteTool(options: { cwd: string }): AgentTool<typeof writeParameters> {
  return {
    name: "write",
    label: "Write file",
    description: "Creates or overwrites a file inside the working directory with the given content.",
    parameters: writeParameters,
    executionMode: "sequential",
    execute: async ({ path, content }) => {
      const file = resolveInside(options.cwd, path);
      await resolveExisting(options.cwd, dirname(path) || ".");
      await writeFile(file, content);
      const bytes = Buffer.byteLength(content);
      return { content: [{ type: "text", text: `Wrote ${bytes} bytes to ${path}.` }], details: { bytes } };
    },
  };
}
