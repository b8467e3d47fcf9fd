import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");
const workspaces = { gyre: "packages/cli", "@gyre/ai": "packages/ai", "@gyre/agent": "packages/agent" } as const;
type PackedFile = { path: string };
const packed = new Map<string, string[]>();
let consumerDir = "";

beforeAll(async () => {
  // The declarations are what an integrator's type check reads: build them as a release would.
  await run(process.execPath, [tsc, "-b", "packages/ai", "packages/agent", "packages/cli"], { cwd: root });
  for (const name of Object.keys(workspaces)) {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "-w", name], { cwd: root });
    const [report] = JSON.parse(stdout) as [{ files: PackedFile[] }];
    packed.set(name, report.files.map((file) => file.path).sort());
  }
  // Inside the repository, so "gyre" resolves through the workspace link as it would from node_modules.
  consumerDir = await mkdtemp(join(root, ".gyre-test-consumer-"));
}, 240_000);

afterAll(async () => {
  if (consumerDir) await rm(consumerDir, { recursive: true, force: true });
});

describe("the packed packages", () => {
  it.each(Object.entries(workspaces))(
    "%s ships its entry files, README and LICENSE and no build leftovers",
    async (name, dir) => {
      const files = packed.get(name) ?? [];
      expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
      expect(files.filter((file) => /tsbuildinfo|^dist\/lib\/|\.test\.|^src\//.test(file))).toEqual([]);
      const manifest = JSON.parse(await readFile(join(root, dir, "package.json"), "utf8"));
      expect(manifest.engines.node).toBe(">=20.3");
      expect(manifest.license).toBe("MIT");
      expect(manifest.repository.directory).toBe(dir);
      expect(manifest.exports["./package.json"]).toBe("./package.json");
      for (const [entry, target] of Object.entries(manifest.exports)) {
        if (entry === "./package.json") continue;
        const { types, default: main } = target as { types: string; default: string };
        expect(files, `${name} ${entry}`).toEqual(expect.arrayContaining([types.slice(2), main.slice(2)]));
      }
    },
  );

  it("gyre ships the bin, the bundle and its declarations, nothing of the tsc output, and no source maps", () => {
    const files = packed.get("gyre") ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/gyre.js",
        "dist/gyre.js",
        "dist/index.js",
        "dist/types/index.d.ts",
        "dist/THIRD-PARTY-LICENSES.md",
      ]),
    );
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    expect(files.every((file) => /^(bin|dist)\/|^(LICENSE|README\.md|package\.json)$/.test(file))).toBe(true);
  });

  it("gyre depends for real on what its declarations name, pins ripgrep exactly and installs no koffi", async () => {
    const manifest = JSON.parse(await readFile(join(root, "packages/cli/package.json"), "utf8"));
    for (const name of ["@gyre/ai", "@gyre/agent", "@sinclair/typebox"])
      expect(manifest.dependencies[name]).toBeDefined();
    expect(manifest.dependencies["@vscode/ripgrep"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.dependencies["@mariozechner/pi-tui"]).toBeUndefined();
    const declarations = await readFile(join(root, "packages/cli/dist/types/index.d.ts"), "utf8");
    expect(declarations).not.toMatch(/from "\.\.\/\.\.\/src|packages\/cli\/src/);
  });
});

describe("the public entry of gyre", () => {
  it("type-checks an extension and an RPC client written against `gyre`, and rejects a wrong command", async () => {
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
    const config = {
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        strict: true,
        noEmit: true,
        types: ["node"],
      },
      files: ["consumer.ts"],
    };
    await writeFile(join(consumerDir, "tsconfig.json"), JSON.stringify(config));
    const result = await run(process.execPath, [tsc, "-p", consumerDir]).catch((error: { stdout: string }) => error);
    expect("stdout" in result ? result.stdout : "").toBe("");
  }, 240_000);

  it("loads at run time without starting the CLI", async () => {
    const script =
      'const m = await import("gyre"); console.log(typeof m.RpcClient, typeof m.createCodingTools, m.rpcCommandTypes.includes("prompt"));';
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumerDir });
    expect(stdout.trim()).toBe("function function true");
  });
});
