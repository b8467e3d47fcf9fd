// Bundles the CLI into ESM files under packages/cli/dist (start-up: Node 20 has no compile cache).
// Workspace packages are bundled from their TypeScript sources, so this needs no prior tsc build.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { build } from "esbuild";

const at = (path) => new URL(path, import.meta.url).pathname;
const entry = at("../packages/cli/src/main.ts");
const entryPoints = { version: at("../packages/cli/src/version.ts"), help: at("../packages/cli/src/help-text.ts") };
if (existsSync(entry)) entryPoints.gyre = entry;
const libraryEntry = at("../packages/cli/src/index.ts");
if (existsSync(libraryEntry)) entryPoints.index = libraryEntry;
// What @gyre/fleet imports from gyre (packages/cli/src/fleet-support.ts): an entry of this build,
// so it shares the command's chunks and a worker's process holds one copy of each module.
const fleetSupport = at("../packages/cli/src/fleet-support.ts");
if (existsSync(fleetSupport)) entryPoints["fleet-support"] = fleetSupport;

const result = await build({
  entryPoints,
  outdir: at("../packages/cli/dist"),
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  chunkNames: "chunks/[name]-[hash]",
  alias: {
    "@gyre/ai/testing": at("../packages/ai/src/testing.ts"),
    "@gyre/ai": at("../packages/ai/src/index.ts"),
    "@gyre/agent": at("../packages/agent/src/index.ts"),
  },
  // pi-tui is bundled, so its optional koffi (28 MB of native FFI, Windows-only, behind a
  // try/require in pi-tui) is never installed with gyre; gyre is POSIX-only anyway.
  // web-tree-sitter finds its wasm next to its own module, so it stays a real package.
  external: ["@vscode/ripgrep", "esbuild", "koffi", "web-tree-sitter", "tree-sitter-bash"],
  metafile: true,
  write: false,
  banner: {
    js: "import { createRequire as __gyreCreateRequire } from 'node:module'; const require = __gyreCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});

await writeOutputs(result.outputFiles);
await removeStaleChunks(result.metafile);
await bundleFleet();
await writeThirdPartyNotices(result.metafile);

/**
 * The fleet package (packages/fleet) as one file: bullmq and ioredis are its dependencies, and
 * gyre, whose fleet-support entry it imports, is installed beside it.
 */
async function bundleFleet() {
  const fleetEntry = at("../packages/fleet/src/index.ts");
  if (!existsSync(fleetEntry)) return;
  await build({
    entryPoints: { index: fleetEntry },
    outdir: at("../packages/fleet/dist"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    external: ["bullmq", "ioredis", "gyre", "gyre/*"],
    logLevel: "warning",
    write: false,
  }).then((fleet) => writeOutputs(fleet.outputFiles));
}

/**
 * Writes the build's files the way a running gyre can bear: a file whose bytes did not change is
 * left alone, and a changed one is written beside its place and renamed over it, so a process that
 * starts while the build runs (a test, a session, the fleet's workers) reads either the old file or
 * the new one, never half of one. A rebuild of unchanged sources writes nothing.
 */
async function writeOutputs(outputFiles) {
  await Promise.all(
    outputFiles.map(async ({ path, contents }) => {
      const current = await readFile(path).catch(() => undefined);
      if (current?.equals(contents)) return;
      await mkdir(dirname(path), { recursive: true });
      const staging = `${path}.${process.pid}.tmp`;
      await writeFile(staging, contents);
      await rename(staging, path);
    }),
  );
}

/**
 * Chunk names carry content hashes: old ones would pile up and ship with `npm pack`. They are
 * removed after the build, not before, so a gyre started from the previous bundle while this
 * one builds (a test, a running session) keeps finding its chunks while the new ones are written;
 * a rebuild of unchanged sources writes the same names and removes nothing.
 */
async function removeStaleChunks(metafile) {
  const dir = at("../packages/cli/dist/chunks");
  const fresh = new Set(Object.keys(metafile.outputs).map((output) => output.split("/").pop()));
  const present = existsSync(dir) ? await readdir(dir) : [];
  await Promise.all(present.filter((name) => !fresh.has(name)).map((name) => rm(`${dir}/${name}`, { force: true })));
}

/** MIT and ISC ask that their notice travel with copies: one file naming every bundled package. */
async function writeThirdPartyNotices(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match && !packages.has(match[1])) packages.set(match[1], input.slice(0, match.index + match[0].length));
  }
  const sections = [];
  for (const [name, dir] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const manifest = JSON.parse(await readFile(at(`../${dir}package.json`), "utf8"));
    const licenceFile = (await readdir(at(`../${dir}`))).find((file) => /^licen[cs]e/i.test(file));
    const text = licenceFile ? await readFile(at(`../${dir}${licenceFile}`), "utf8") : "(no licence file shipped)";
    sections.push(`## ${name} ${manifest.version} (${manifest.license ?? "see below"})\n\n${text.trim()}\n`);
  }
  const header = "# Third-party software bundled into gyre's dist/\n\n";
  const path = at("../packages/cli/dist/THIRD-PARTY-LICENSES.md");
  await writeOutputs([{ path, contents: Buffer.from(header + sections.join("\n")) }]);
}
