import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { type FakeReply, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { loadsBundled, moduleLogger } from "../helpers/module-logger.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Bundles main.ts the way scripts/bundle.mjs does and returns the inputs of the chunks `gyre.js` loads statically. */
async function startupInputs(): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: { gyre: at("../../src/main.ts") },
    outdir: at("../../dist-metafile-probe"),
    write: false,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    metafile: true,
    chunkNames: "chunks/[name]-[hash]",
    alias: {
      "@gyre/ai/testing": at("../../../ai/src/testing.ts"),
      "@gyre/ai": at("../../../ai/src/index.ts"),
      "@gyre/agent": at("../../../agent/src/index.ts"),
    },
    external: ["@vscode/ripgrep", "@mariozechner/pi-tui", "esbuild", "bullmq", "ioredis"],
    logLevel: "silent",
  });
  const outputs: Metafile["outputs"] = metafile.outputs;
  const entry = Object.keys(outputs).find((path) => path.endsWith("/gyre.js"));
  const seen = new Set<string>();
  const pending = entry ? [entry] : [];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (seen.has(path)) continue;
    seen.add(path);
    for (const item of outputs[path]?.imports ?? []) if (item.kind === "import-statement") pending.push(item.path);
  }
  return [...seen].flatMap((path) =>
    Object.entries(outputs[path]?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([input]) => input),
  );
}

describe("the -p start-up chunk", () => {
  it("leaves ajv and the wire providers to lazy chunks", async () => {
    const inputs = await startupInputs();
    expect(inputs.some((input) => input.endsWith("cli/src/main.ts"))).toBe(true);
    const lazyOnly = [
      /node_modules\/(ajv|fast-uri)\//,
      /\/validate-arguments\.ts$/,
      /providers\/(anthropic-messages|google-gemini|openai-completions|openai-responses)\//,
    ];
    const eager = inputs.filter((input) => lazyOnly.some((pattern) => pattern.test(input)));
    expect(eager).toEqual([]);
  });

  it("loads no subcommand's module: the table in commands/index.ts imports them lazily", async () => {
    const inputs = await startupInputs();
    expect(inputs.some((input) => input.endsWith("cli/src/commands/index.ts"))).toBe(true);
    const subcommandModules = [/\/commands\/(doctor|mcp|packages)\//, /\/commands\/fleet-usage\.ts$/, /\/fleet\//];
    expect(inputs.filter((input) => subcommandModules.some((pattern) => pattern.test(input)))).toEqual([]);
  });
});

describe("the argument validator (ajv)", () => {
  /** Runs `gyre -p` against a model that replies `reply` first and "done" after, and says whether ajv was loaded. */
  async function loadsAjv(reply: FakeReply): Promise<boolean> {
    const server = await startFakeModelServer({ respond: ({ index }) => (index === 0 ? reply : { text: "done" }) });
    try {
      const { cwd, home } = await createWorkspace();
      const logger = await moduleLogger();
      const env = cliEnv(home, {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: `${server.url}/v1`,
        NODE_OPTIONS: logger.nodeOptions,
      });
      const result = await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", "--approval", "allow", "go"], {
        cwd,
        env,
      });
      expect(result.stdout).toContain("done");
      return loadsBundled(await logger.loaded(), /^node_modules\/ajv\//);
    } finally {
      await server.close();
    }
  }

  it("is loaded once the model calls a tool, and not by a run whose answers call none", async () => {
    expect(await loadsAjv({ text: "done" })).toBe(false);
    expect(await loadsAjv({ toolCalls: [{ name: "ls", arguments: { path: "." } }] })).toBe(true);
  }, 30_000);
});
