import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const at = (path: string) => join(root, path);
const example = at("packages/cli/examples/sdk.ts");
/** Our packages from source; every other bare import stays external and resolves from node_modules. */
const sources: Record<string, string> = {
  "@gyre/ai/testing": at("packages/ai/src/testing.ts"),
  "@gyre/ai": at("packages/ai/src/index.ts"),
  "@gyre/agent": at("packages/agent/src/index.ts"),
  gyre: at("packages/cli/src/index.ts"),
};

let dir = "";
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the SDK example", () => {
  it("reads and edits a file through the faux model, offline", async () => {
    // Inside the repository so external packages resolve as they would for a user.
    dir = await mkdtemp(at("packages/cli/.sdk-example-"));
    const outfile = join(dir, "sdk.mjs");
    await build({
      entryPoints: [example],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      logLevel: "silent",
      plugins: [
        {
          name: "workspace-sources",
          setup(plugin) {
            plugin.onResolve({ filter: /^[^./]/ }, (args) => {
              const source = sources[args.path];
              return source ? { path: source } : { path: args.path, external: true };
            });
          },
        },
      ],
    });
    const { stdout, stderr } = await run(process.execPath, [outfile], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      timeout: 30_000,
    });
    expect(stderr).toBe("");
    expect(stdout).toBe(
      "tool: read\ntool: edit\nended: stop\nanswer: The greeting now says hello to gyre.\nfile: hello gyre\n",
    );
  });

  it("is the code block of the README's Embedding section", async () => {
    const readme = await readFile(at("README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### The whole coding agent"));
    const block = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(block).toBe((await readFile(example, "utf8")).trimEnd());
  });
});
