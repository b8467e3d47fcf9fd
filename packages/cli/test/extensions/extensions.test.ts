import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { example, systemText, toolMessages } from "./helpers.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function start(replies: Parameters<typeof startFakeModelServer>[0]["respond"]) {
  server = await startFakeModelServer({ respond: replies });
  return server;
}

describe("extensions in print mode", () => {
  it("lets the model call a tool a TypeScript extension registered, without a build step", async () => {
    const { cwd, home } = await createWorkspace();
    const fake = await start(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "word_count", arguments: { text: "one two three" } }] }
        : { text: "Three words." },
    );
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "-e", example("custom-tool.ts"), "count"], { cwd, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Three words.\n");
    const tools = (fake.requests[0]?.body.tools ?? []) as { function: { name: string } }[];
    expect(tools.map((tool) => tool.function.name)).toContain("word_count");
    expect(systemText(fake.requests[0]?.body)).toContain("word_count: Counts the lines");
    expect(toolMessages(fake.requests[1]?.body)).toEqual(["1 lines, 3 words, 13 characters"]);
  });

  it("blocks rm -rf through a tool_call handler; the model sees why and nothing is deleted", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, "victim"));
    await writeFile(join(cwd, "victim", "keep.txt"), "precious");
    const fake = await start(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "rm -rf victim" } }] }
        : { text: "Understood." },
    );
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const args = ["-p", "--provider", "openai", "-e", example("permission-gate.ts"), "clean up"];
    const result = await runCli(args, { cwd, env });
    expect(result.code).toBe(0);
    expect(await readFile(join(cwd, "victim", "keep.txt"), "utf8")).toBe("precious");
    const [toolText] = toolMessages(fake.requests[1]?.body);
    expect(toolText).toContain('The user did not allow this: Run "rm -rf victim" (rm -rf)');
    expect(toolText).toContain("nobody could confirm");
    expect(result.stderr).toContain('asked "Run "rm -rf victim" (rm -rf)?", but nobody can answer in print mode');
  });

  it("blocks the call when a tool_call gate hangs past the timeout (fails closed), skips a failing turn handler, and goes on", async () => {
    const { cwd, home } = await createWorkspace();
    const extension = join(cwd, "hang.ts");
    await writeFile(
      extension,
      `import type { ExtensionAPI } from ${JSON.stringify(example("../../src/core/extensions/types.js"))};
export default function (api: ExtensionAPI) {
  api.on("tool_call", () => new Promise<undefined>(() => {}));
  api.on("turn_start", () => { throw new Error("turn handler broke"); });
}
`,
    );
    const fake = await start(({ index }) =>
      index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo ran > out.txt" } }] } : { text: "ok" },
    );
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1`, GYRE_EXTENSION_TIMEOUT_MS: "300" });
    const result = await runCli(["-p", "--provider", "openai", "-e", extension, "go"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ok\n");
    // The gate could not decide, so the call did not run (fail closed) and the model was told why.
    await expect(readFile(join(cwd, "out.txt"), "utf8")).rejects.toThrow(/ENOENT/);
    expect(toolMessages(fake.requests[1]?.body).join(" ")).toMatch(
      /blocked because the tool_call gate of the extension .*hang\.ts could not decide \(it did not finish within 300 ms\)/,
    );
    expect(result.stderr).toContain(
      `${extension}: the "tool_call" handler did not finish within 300 ms; blocked the bash call (a gate that cannot decide fails closed).`,
    );
    expect(result.stderr).toContain(`${extension}: the "turn_start" handler failed: turn handler broke; skipped it.`);
  });

  it("names the file and line of a discovered extension's load error and runs on without it", async () => {
    const { cwd, home } = await createWorkspace();
    const dir = join(home, "extensions");
    await mkdir(dir);
    await writeFile(join(dir, "broken.ts"), "export default function (api) {\n  const x: number = ;\n}\n");
    await writeFile(
      join(dir, "throws.mjs"),
      'const a = 1;\nthrow new Error("boom on import");\nexport default () => {};\n',
    );
    await writeFile(join(dir, "no-default.js"), "export const x = 1;\n");
    const fake = await start(() => ({ text: "fine" }));
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("fine\n");
    expect(result.stderr).toContain(`${join(dir, "broken.ts")}:2:21: Unexpected ";"`);
    expect(result.stderr).toContain(`${join(dir, "throws.mjs")}:2:7: boom on import`);
    expect(result.stderr).toContain(`${join(dir, "no-default.js")}: an extension must export a function as default`);
  });

  it("exits 2 without running when an -e extension fails to load, since it may be the guard", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "guard-bad.ts"), "export default function (api) {\n  const x: number = ;\n}\n");
    const fake = await start(() => ({ text: "must not run" }));
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "-e", "guard-bad.ts", "hi"], { cwd, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The extension given with -e did not load: ${join(cwd, "guard-bad.ts")}:2:21`);
    expect(fake.requests).toHaveLength(0);
  });

  it("blocks a tool call whose tool_call handler throws, with the reason for the model", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(cwd, "throws.js"),
      'export default (api) => api.on("tool_call", () => { throw new Error("boom in hook"); });\n',
    );
    const fake = await start(({ index }) =>
      index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo ran > out.txt" } }] } : { text: "ok" },
    );
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "-e", "throws.js", "go"], { cwd, env });
    expect(result.code).toBe(0);
    await expect(readFile(join(cwd, "out.txt"), "utf8")).rejects.toThrow(/ENOENT/);
    expect(toolMessages(fake.requests[1]?.body).join(" ")).toContain("could not decide (it failed: boom in hook)");
    // What stderr says matches what happened: the call was blocked, not the gate skipped.
    expect(result.stderr).toContain(
      'the "tool_call" handler failed: boom in hook; blocked the bash call (a gate that cannot decide fails closed).',
    );
    expect(result.stderr).not.toContain("skipped it");
  });

  it("prints an extension command's notice in print mode without --verbose", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(cwd, "guard.js"),
      'export default (api) => api.registerCommand("guard", { handler: (args, ctx) => ctx.ui.notify("guard says " + args) });\n',
    );
    const fake = await start(() => ({ text: "unused" }));
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "-e", "guard.js", "/guard hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("guard says hi");
    expect(fake.requests).toHaveLength(0);
  });

  it("exits 2 when an -e file does not exist", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["-p", "--provider", "openai", "-e", "missing.ts", "hi"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing\.ts does not exist; check the -e\/--extension path/);
  });

  it("rewrites tool arguments and results, accepts registered flags, and still rejects unknown ones", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(home, "extensions"));
    await writeFile(
      join(home, "extensions", "rewrite.js"),
      `export default function (api) {
  api.registerFlag("greeting", { type: "string", default: "hello" });
  api.on("tool_call", (event) => event.toolName === "bash" ? { args: { command: "echo " + api.getFlag("greeting") + " > greet.txt" } } : undefined);
  api.on("tool_result", (event) => ({ content: [{ type: "text", text: "REDACTED " + event.toolName }] }));
}
`,
    );
    const fake = await start(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo nope > greet.txt" } }] }
        : { text: "done" },
    );
    const env = cliEnv(home, { OPENAI_BASE_URL: `${fake.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "--greeting", "bonjour", "say", "hi"], { cwd, env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(await readFile(join(cwd, "greet.txt"), "utf8")).toBe("bonjour\n");
    expect(toolMessages(fake.requests[1]?.body)).toEqual(["REDACTED bash"]);
    expect(JSON.stringify(fake.requests[0]?.body.messages)).toContain("say hi");

    const unknown = await runCli(["-p", "--provider", "openai", "--frobnicate", "hi"], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown option --frobnicate; run gyre --help/);
    expect(await exists(join(cwd, "nothing"))).toBe(false);
  });
});
