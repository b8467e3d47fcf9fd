// What the packed packages must be, checked without installing them (`check:package`, part of
// `npm run check`): the declarations build as a release builds them; each tarball ships its entry
// files, README and LICENSE and no build leftovers; gyre ships its bin, bundle and declarations,
// depends on no @gyre package (they are inside its bundle) and names them as optional peers for
// its declarations; and a program written against gyre's declarations type-checks.
// @gyre/fleet pins its Redis dependencies and names gyre as an optional peer.
// Installing the tarballs for real is packages/cli/test/package/install.test.ts.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");
const workspaces = {
  gyre: "packages/cli",
  "@gyre/ai": "packages/ai",
  "@gyre/agent": "packages/agent",
  "@gyre/fleet": "packages/fleet",
};
const problems = [];
const expect = (ok, problem) => {
  if (!ok) problems.push(problem);
};

await run(process.execPath, [tsc, "-b", "packages/ai", "packages/agent", "packages/cli", "packages/fleet"], {
  cwd: root,
});

for (const [name, dir] of Object.entries(workspaces)) {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "-w", name], { cwd: root });
  const files = JSON.parse(stdout)[0].files.map((file) => file.path);
  for (const file of ["LICENSE", "README.md", "package.json"])
    expect(files.includes(file), `${name} does not ship ${file}`);
  const leftovers = files.filter((file) => /tsbuildinfo|^dist\/lib\/|\.test\.|^src\//.test(file));
  expect(leftovers.length === 0, `${name} ships build leftovers: ${leftovers.join(", ")}`);
  const manifest = JSON.parse(await readFile(join(root, dir, "package.json"), "utf8"));
  expect(manifest.engines?.node === ">=20.3", `${name}'s engines.node is not ">=20.3"`);
  expect(manifest.license === "MIT", `${name}'s licence is not MIT`);
  expect(manifest.repository?.directory === dir, `${name}'s repository.directory is not ${dir}`);
  expect(manifest.exports?.["./package.json"] === "./package.json", `${name} does not export ./package.json`);
  for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
    if (entry === "./package.json") continue;
    for (const path of [target.types, target.default])
      expect(files.includes(path.slice(2)), `${name} exports ${entry} as ${path}, which it does not ship`);
  }
  if (name === "gyre") checkGyre(manifest, files);
  if (name === "@gyre/fleet") checkFleet(manifest, files);
}

/** The fleet: its own Redis dependencies, gyre beside it (an optional peer: on no registry). */
function checkFleet(manifest, files) {
  expect(files.includes("dist/index.js"), "@gyre/fleet does not ship dist/index.js (run npm run build)");
  for (const name of ["bullmq", "ioredis"])
    expect(/^\d+\.\d+\.\d+$/.test(manifest.dependencies?.[name] ?? ""), `@gyre/fleet does not pin ${name} exactly`);
  expect(
    manifest.dependencies?.gyre === undefined && manifest.peerDependenciesMeta?.gyre?.optional === true,
    "@gyre/fleet must name gyre as an optional peer (a dependency would make npm fetch it from a registry)",
  );
}

function checkGyre(manifest, files) {
  for (const file of [
    "bin/gyre.js",
    "dist/gyre.js",
    "dist/index.js",
    "dist/fleet-support.js",
    "dist/types/index.d.ts",
    "dist/THIRD-PARTY-LICENSES.md",
  ])
    expect(files.includes(file), `gyre does not ship ${file} (run npm run build)`);
  expect(!files.some((file) => file.endsWith(".map")), "gyre ships source maps");
  const outside = files.filter((file) => !/^(bin|dist)\/|^(LICENSE|README\.md|package\.json)$/.test(file));
  expect(outside.length === 0, `gyre ships files outside bin/ and dist/: ${outside.join(", ")}`);
  for (const name of ["@gyre/ai", "@gyre/agent"]) {
    // Bundled: a registry dependency on them would make `npm install ./gyre-<v>.tgz` fail with E404.
    expect(manifest.dependencies?.[name] === undefined, `gyre depends on ${name}, which is on no registry`);
    expect(
      manifest.peerDependencies?.[name] === manifest.version &&
        manifest.peerDependenciesMeta?.[name]?.optional === true,
      `gyre does not name ${name} ${manifest.version} as an optional peer (its declarations import it)`,
    );
  }
  expect(
    manifest.dependencies?.["@sinclair/typebox"] !== undefined,
    "gyre's declarations name @sinclair/typebox, which it does not depend on",
  );
  expect(
    /^\d+\.\d+\.\d+$/.test(manifest.dependencies?.["@vscode/ripgrep"] ?? ""),
    "gyre does not pin @vscode/ripgrep exactly",
  );
  expect(manifest.dependencies?.["@mariozechner/pi-tui"] === undefined, "gyre depends on pi-tui, which it bundles");
  for (const name of ["bullmq", "ioredis"])
    expect(manifest.dependencies?.[name] === undefined, `gyre depends on ${name}, which only @gyre/fleet needs`);
}

const declarations = await readFile(join(root, "packages/cli/dist/types/index.d.ts"), "utf8");
expect(!/from "\.\.\/\.\.\/src|packages\/cli\/src/.test(declarations), "gyre's declarations point into src/");

// Inside the repository, so "gyre" resolves through the workspace link as it would from node_modules.
const consumerDir = await mkdtemp(join(root, ".gyre-test-consumer-"));
try {
  const consumer = `import type { ExtensionAPI, RpcCommand, SessionEvent } from "gyre";
import { createCodingTools, RpcClient } from "gyre";

export default function extension(api: ExtensionAPI): void {
  api.on("tool_call", (event) => (event.toolName === "bash" ? { block: true, reason: "No shell here." } : undefined));
}
export const names: string[] = createCodingTools({ cwd: "/tmp", tools: ["read"] }).map((tool) => tool.name);
export const prompt: RpcCommand = { type: "prompt", message: "hi" };
export const isEnd = (event: SessionEvent): boolean => event.type === "agent_end";
export const client = (bin: string): RpcClient => new RpcClient({ command: bin });
// @ts-expect-error: not a command gyre's RPC mode knows
export const wrong: RpcCommand = { type: "no_such_command" };
`;
  await writeFile(join(consumerDir, "consumer.ts"), consumer);
  const compilerOptions = {
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    strict: true,
    noEmit: true,
    types: ["node"],
  };
  await writeFile(join(consumerDir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
  const failure = await run(process.execPath, [tsc, "-p", consumerDir]).then(
    () => undefined,
    (error) => error,
  );
  expect(!failure, `a program written against gyre's declarations does not type-check:\n${failure?.stdout ?? ""}`);
} finally {
  await rm(consumerDir, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`check-package: ${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
  process.exitCode = 1;
} else console.log("packages ok");
