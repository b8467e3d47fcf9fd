import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ExtensionFactory } from "./types.js";

/** A plain string key: a module may export a name like `Symbol` that would shadow the global in generated code. */
const hostModulesKey = "__gyreExtensionHostModules";

export type ImportResult = { ok: true; factory: ExtensionFactory } | { ok: false; error: string };

/** Loads so far: each import gets its own URL. */
let loads = 0;

/**
 * Imports an extension file and returns its default export. JavaScript is imported as it is;
 * TypeScript is bundled by esbuild into a temporary `.mjs` first (no build step for the user).
 * Never throws: a failure is a sentence naming the file and, where known, the line.
 */
export async function importExtensionModule(path: string): Promise<ImportResult> {
  const typescript = /\.m?ts$/.test(path);
  let module: { default?: unknown };
  try {
    // A fresh URL per load: Node caches modules by URL, and `/reload` must read the file again.
    module = typescript ? await importTypeScript(path) : await import(`${pathToFileURL(path).href}?load=${++loads}`);
  } catch (error) {
    return { ok: false, error: describeLoadError(error, path) };
  }
  if (typeof module.default !== "function") {
    return {
      ok: false,
      error: `${path}: an extension must export a function as default (export default function (api) { ... }).`,
    };
  }
  return { ok: true, factory: module.default as ExtensionFactory };
}

async function importTypeScript(path: string): Promise<{ default?: unknown }> {
  // esbuild is only needed for TypeScript extensions; loading it lazily keeps start-up fast.
  const esbuild = await import("esbuild");
  const outfile = join(tmpdir(), `gyre-extension-${randomBytes(6).toString("hex")}.mjs`);
  const built = await esbuild.build({
    entryPoints: [path],
    absWorkingDir: dirname(path),
    outfile,
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "inline",
    logLevel: "silent",
    plugins: [
      {
        name: "gyre-host-modules",
        setup(build) {
          build.onResolve({ filter: /^(@sinclair\/typebox|@gyre\/ai|@gyre\/agent)$/ }, (args) => ({
            path: args.path,
            namespace: "gyre-host",
          }));
          build.onLoad({ filter: /.*/, namespace: "gyre-host" }, async (args) => ({
            contents: await hostModuleSource(args.path),
            loader: "js",
          }));
        },
      },
    ],
  });
  const output = built.outputFiles[0];
  if (!output) throw new Error("esbuild produced no output.");
  await writeFile(outfile, output.contents);
  // Stack traces then point at the .ts file and line rather than the temporary bundle.
  process.setSourceMapsEnabled(true);
  try {
    return (await import(pathToFileURL(outfile).href)) as { default?: unknown };
  } finally {
    await rm(outfile, { force: true });
  }
}

type HostModules = Record<string, Record<string, unknown>>;

/** The host packages a TypeScript extension may import, each loaded when one first imports it. */
const hostModuleLoaders: Record<string, () => Promise<Record<string, unknown>>> = {
  "@sinclair/typebox": async () => ({ ...(await import("@sinclair/typebox")) }),
  "@gyre/ai": async () => ({ ...(await import("@gyre/ai")) }),
  "@gyre/agent": async () => {
    const agent = await import("@gyre/agent");
    // Extensions get validateArguments as a plain function; its ajv loads only for an extension
    // that imports @gyre/agent, not at every start-up (start-up time).
    return { ...agent, validateArguments: await agent.loadValidateArguments() };
  },
};
const hostModuleLoads = new Map<string, Promise<Record<string, unknown>>>();

/** The host module's source for esbuild: named exports read from a global set before the import. */
async function hostModuleSource(name: string): Promise<string> {
  const holder = globalThis as unknown as Record<string, HostModules | undefined>;
  let loading = hostModuleLoads.get(name);
  if (!loading) {
    loading = hostModuleLoaders[name]?.() ?? Promise.resolve({});
    hostModuleLoads.set(name, loading);
  }
  const module = await loading;
  holder[hostModulesKey] = { ...holder[hostModulesKey], [name]: module };
  const names = Object.keys(module).filter((key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key));
  const access = `globalThis.${hostModulesKey}[${JSON.stringify(name)}]`;
  return `const __gyreHostModule = ${access};\nexport const { ${names.join(", ")} } = __gyreHostModule;\nexport default __gyreHostModule;\n`;
}

type EsbuildMessage = { text: string; location?: { file: string; line: number; column: number } | null };

/** `file:line:column: message` for esbuild errors; for errors thrown on import, the first stack frame in the file. */
export function describeLoadError(error: unknown, path: string): string {
  const errors = (error as { errors?: EsbuildMessage[] }).errors;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  if (first) {
    const at = first.location
      ? `${resolve(dirname(path), first.location.file)}:${first.location.line}:${first.location.column + 1}`
      : path;
    return `${at}: ${first.text}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return `${findLocation(stack, path) ?? path}: ${message}`;
}

function findLocation(stack: string, path: string): string | undefined {
  for (const candidate of [pathToFileURL(path).href, path]) {
    const escaped = candidate.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    // A loaded module's URL carries its `?load=N`.
    const match = new RegExp(`${escaped}(?:\\?load=\\d+)?:(\\d+)(?::(\\d+))?`).exec(stack);
    if (match) return `${path}:${match[1]}${match[2] ? `:${match[2]}` : ""}`;
  }
  return undefined;
}
