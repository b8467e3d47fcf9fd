/**
 * The README's installs, done as a user on a clean machine would: its blocks run as they are
 * written, with an empty npm cache and a temporary global prefix, and no `@gyre/*` package on any
 * registry (the third-party dependencies do come from the npm registry). Then the installed
 * command answers `--version` and a `-p` run, and the README's embedding examples run in a new
 * project against the installed tarballs, the faux-model one across `gyre`'s bundled copy of
 * `@gyre/ai` and the project's own.
 */
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractDocBlocks } from "../../../../scripts/doc-blocks.mjs";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { freePort } from "../helpers/redis-server.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8")) as { version: string };
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = extractDocBlocks(readme, "README.md");
const embedding = readme.slice(readme.indexOf("\n## Embedding"));
const embeddingBlocks = extractDocBlocks(embedding, "README.md#embedding");

let scratch = "";
let server: FakeModelServer | undefined;
/** npm's environment: a fresh cache and prefix, nothing from the user's npm config. */
let npmEnv: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "gyre-install-"));
  npmEnv = {
    // The machine's environment (its CA certificates, its npm config), minus what `npm run`/`npx`
    // and gyre set: an empty cache and a temporary prefix are the clean machine.
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|GYRE_)/i.test(name))),
    // The temporary prefix's bin and the system's; none of the repository's node_modules/.bin.
    PATH: [join(scratch, "prefix/bin"), ...systemPath()].join(":"),
    npm_config_cache: join(scratch, "cache"),
    npm_config_prefix: join(scratch, "prefix"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  await mkdir(join(scratch, "home"));
  server = await startFakeModelServer({ respond: () => ({ text: "5" }) });
});
afterAll(async () => {
  await server?.close();
  await rm(join(root, `gyre-${version}.tgz`), { force: true });
  for (const name of ["ai", "agent", "fleet"]) await rm(join(root, `gyre-${name}-${version}.tgz`), { force: true });
  if (scratch) await rm(scratch, { recursive: true, force: true });
  // Removing two global installs and an npm cache took over 10 s at load 22.
}, 120_000);

/** The PATH entries outside any node_modules (npm run and npx add the workspace's bins). */
function systemPath(): string[] {
  return (process.env.PATH ?? "/usr/bin:/bin").split(":").filter((dir) => dir && !dir.includes("node_modules"));
}

/** Runs `script` under bash with stdin closed (npm waits on an open one); rejects with its output on failure. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`\`${script}\` exited with ${code}:\n${output.slice(-4000)}`));
    });
  });
}

describe("the README's install", () => {
  it("installs the gyre command from the packed tarball alone, as the README's block says", async () => {
    const block = blocks.find((candidate) => candidate.code.includes("npm install -g ./gyre-"));
    expect(block?.code).toContain(`npm pack -w gyre && npm install -g ./gyre-${version}.tgz`);
    const stdout = await bash(block?.code ?? "false", root, npmEnv);
    expect(stdout.trim().split("\n").at(-1)).toBe(version);
    // Nothing of the workspace leaked in: the installed tree has no @gyre package of its own.
    const installed = join(scratch, `prefix/lib/node_modules/gyre`);
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith("@gyre/"))).toEqual([]);
    await expect(readFile(join(installed, "node_modules/@gyre/ai/package.json"))).rejects.toThrow(/ENOENT/);
  }, 420_000);

  it("a plain install has no fleet: gyre jobs says in one sentence how to install it", async () => {
    const installed = join(scratch, "prefix/lib/node_modules");
    for (const name of ["bullmq", "ioredis"])
      await expect(readFile(join(installed, `gyre/node_modules/${name}/package.json`))).rejects.toThrow(/ENOENT/);
    const result = await run(join(scratch, "prefix/bin/gyre"), ["jobs", "--redis", "redis://127.0.0.1:9"], {
      env: npmEnv,
    }).catch((error: { code: number; stderr: string }) => error);
    expect("code" in result && result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^gyre: gyre jobs needs the fleet package: install it beside gyre .*gyre-fleet-<version>\.tgz/,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  }, 60_000);

  it("the README's fleet install adds @gyre/fleet beside gyre, and gyre jobs then reaches for Redis", async () => {
    const block = blocks.find((candidate) => candidate.code.includes("./gyre-fleet-"));
    expect(block?.code).toContain(`npm install -g ./gyre-${version}.tgz ./gyre-fleet-${version}.tgz`);
    await bash(block?.code ?? "false", root, npmEnv);
    const fleet = join(scratch, "prefix/lib/node_modules/@gyre/fleet");
    expect(JSON.parse(await readFile(join(fleet, "package.json"), "utf8")).version).toBe(version);
    const port = await freePort();
    const result = await run(join(scratch, "prefix/bin/gyre"), ["jobs", "--redis", `redis://127.0.0.1:${port}`], {
      env: npmEnv,
    }).catch((error: { code: number; stderr: string }) => error);
    expect("code" in result && result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot reach Redis at redis://127.0.0.1:${port} within 5 s`);
  }, 420_000);

  it("the installed command answers a -p run against a local model server", async () => {
    const project = await mkdtemp(join(scratch, "project-"));
    const env = { ...npmEnv, GYRE_HOME: join(scratch, "gyre-home"), OPENAI_API_KEY: "sk-test" };
    const gyre = join(scratch, "prefix/bin/gyre");
    const args = ["-p", "--provider", "openai", "--model", "m", "--no-session", "What is 2 + 3?"];
    const stdout = await bash(`${gyre} ${args.map((arg) => `'${arg}'`).join(" ")}`, project, {
      ...env,
      OPENAI_BASE_URL: `${server?.url}/v1`,
    });
    expect(stdout.trim()).toBe("5");
  }, 60_000);

  it("npx runs the tarball without installing it", async () => {
    // A cache of its own: npx must fetch everything again, as on a machine that never installed gyre.
    const env = { ...npmEnv, npm_config_cache: join(scratch, "npx-cache"), npm_config_prefix: join(scratch, "npx") };
    const stdout = await bash(`npx --yes ./gyre-${version}.tgz --version`, root, env);
    expect(stdout.trim()).toBe(version);
    await expect(readFile(join(scratch, "npx/bin/gyre"))).rejects.toThrow(/ENOENT/);
  }, 320_000);
});

describe("the README's embedding, against the installed tarballs", () => {
  let project = "";
  beforeAll(async () => {
    project = join(scratch, "my-project");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "my-project", private: true, type: "module" }),
    );
    const install = embeddingBlocks.find((block) => block.language === "sh");
    expect(install?.code).toContain("npm run pack");
    const script = (install?.code ?? "false").replaceAll("~/gyre", root).replaceAll("~/my-project", project);
    await bash(script, root, npmEnv);
  }, 420_000);

  const examples = embeddingBlocks.filter((block) => block.language === "ts");
  it("finds the three examples", () => {
    expect(examples.map((block) => block.code.match(/from "(gyre|@gyre\/agent)"/)?.[1])).toEqual([
      "@gyre/agent",
      "gyre",
      "gyre",
    ]);
  });

  it.each(examples.map((block, index) => [index, block] as const))(
    "example %i runs",
    async (index, block) => {
      const { code } = await transform(block.code, { loader: "ts", format: "esm", target: "node20" });
      const file = join(project, `example-${index}.mjs`);
      await writeFile(file, code);
      const env = {
        PATH: npmEnv.PATH,
        HOME: join(scratch, "home"),
        GYRE_HOME: join(scratch, "gyre-home"),
        OPENAI_BASE_URL: `${server?.url}/v1`,
        GYRE_BIN: join(project, "node_modules/.bin/gyre"),
      };
      const result = await run(process.execPath, [file], { cwd: project, env, timeout: 60_000 });
      expect(result.stderr).toBe("");
      if (block.code.includes("createFauxModel")) {
        // Made by the project's @gyre/ai, run by the copy inside gyre's bundle.
        expect(result.stdout).toContain("answer: The greeting now says hello to gyre.");
        expect(result.stdout).toContain("file: hello gyre");
      } else if (block.code.includes("RpcClient")) {
        expect(result.stdout).toContain("command: 'prompt', success: true");
        expect(result.stdout.trim().split("\n").at(-1)).toBe("0");
      } else expect(result.stdout).toContain("text: '5'");
    },
    90_000,
  );

  it("the examples type-check against the installed declarations", async () => {
    const files = examples.map((_, index) => `typed-${index}.ts`);
    await Promise.all(examples.map((block, index) => writeFile(join(project, `typed-${index}.ts`), block.code)));
    const compilerOptions = {
      module: "NodeNext",
      moduleResolution: "NodeNext",
      target: "ES2022",
      strict: true,
      noEmit: true,
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
    };
    await writeFile(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", project]).catch((error: { stdout: string }) => error);
    expect("stdout" in result ? result.stdout : "").toBe("");
  }, 120_000);
});
