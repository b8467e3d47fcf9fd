// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is configuration text here
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const trouble = fileURLToPath(new URL("./fixtures/trouble-server.mjs", import.meta.url));

const servers = (entries: Record<string, unknown>) => `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`;

/** A faux model that calls one tool, then answers with the text of the tool result it got. */
async function writeScript(dir: string, call: { name: string; arguments: Record<string, unknown> }) {
  const file = join(dir, "script.json");
  await writeFile(
    file,
    JSON.stringify([{ content: [{ type: "toolCall", ...call }] }, { content: [{ type: "text", text: "done" }] }]),
  );
  return file;
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("gyre with MCP servers", () => {
  it("runs an MCP tool in a JSON-mode run from $GYRE_HOME/mcp.json, waiting for the server first", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      servers({ everything: { command: process.execPath, args: [everything, "stdio"] } }),
    );
    const script = await writeScript(home, { name: "mcp__everything__echo", arguments: { message: "through gyre" } });
    const result = await runCli(["--mode", "json", "--provider", "faux", "--faux-script", script, "-p", "go"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const end = jsonLines(result.stdout).find((event) => event.type === "tool_execution_end");
    expect(end).toMatchObject({
      toolName: "mcp__everything__echo",
      isError: false,
      result: { content: [{ type: "text", text: "Echo: through gyre" }] },
    });
  });

  it("expands /mcp__server__prompt args into the prompt's text in a headless run", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      servers({ everything: { command: process.execPath, args: [everything, "stdio"] } }),
    );
    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "sunny" }] }]));
    const args = ["--mode", "json", "--provider", "faux", "--faux-script", script, "-p"];
    const result = await runCli([...args, "/mcp__everything__args-prompt Paris state=Texas"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code).toBe(0);
    const user = jsonLines(result.stdout).find(
      (event) => event.type === "message_start" && (event.message as { role: string }).role === "user",
    );
    expect((user?.message as { content: unknown } | undefined)?.content).toBe("What's weather in Paris, Texas?");
    const missing = await runCli([...args, "/mcp__everything__args-prompt"], { cwd, env: cliEnv(home) });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/\/mcp__everything__args-prompt needs city/);
  });

  it("reads --mcp-config files, and --no-mcp starts nothing", async () => {
    const { cwd, home } = await createWorkspace();
    const config = join(home, "extra.json");
    await writeFile(config, servers({ t: { command: process.execPath, args: [trouble] } }));
    const script = await writeScript(home, { name: "mcp__t__fail", arguments: {} });
    const withServer = await runCli(
      ["--mode", "json", "--provider", "faux", "--faux-script", script, "--mcp-config", config, "-p", "go"],
      { cwd, env: cliEnv(home) },
    );
    expect(jsonLines(withServer.stdout).find((event) => event.type === "tool_execution_end")).toMatchObject({
      isError: true,
    });
    expect(JSON.stringify(jsonLines(withServer.stdout))).toContain("the widget is broken");
    const without = await runCli(
      ["--mode", "json", "--provider", "faux", "--faux-script", script, "--mcp-config", config, "--no-mcp", "-p", "go"],
      { cwd, env: cliEnv(home) },
    );
    expect(JSON.stringify(jsonLines(without.stdout))).toMatch(/Unknown tool|not (found|available)|available tools/i);
    const missing = await runCli(
      ["--provider", "faux", "--faux-script", script, "-p", "x", "--mcp-config", join(home, "nope.json")],
      { cwd, env: cliEnv(home) },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--mcp-config .*nope\.json does not exist/);
  });

  it("starts nothing from an untrusted project's .mcp.json and says so", async () => {
    const { cwd, home } = await createWorkspace();
    const marker = join(cwd, "started");
    const starter = join(cwd, "starter.mjs");
    await writeFile(
      starter,
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "yes");`,
    );
    await writeFile(join(cwd, ".mcp.json"), servers({ sneaky: { command: process.execPath, args: [starter] } }));
    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
    const result = await runCli(["--provider", "faux", "--faux-script", script, "--verbose", "-p", "hi"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/\.mcp\.json \(MCP servers sneaky\) was not loaded because it is not trusted/);
    await expect(stat(marker)).rejects.toThrow(/ENOENT/);
    // The same folder with --trust does start it: the check above could fail.
    await runCli(["--provider", "faux", "--faux-script", script, "--trust", "-p", "hi"], { cwd, env: cliEnv(home) });
    expect(await readFile(marker, "utf8")).toBe("yes");
  });

  it("names the held-back .mcp.json, not .gyre/, when the only .gyre is the empty folder a sandbox keeps", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".gyre"));
    await writeFile(join(cwd, ".mcp.json"), servers({ sneaky: { command: process.execPath, args: ["-e", ""] } }));
    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
    const result = await runCli(["--provider", "faux", "--faux-script", script, "--verbose", "-p", "hi"], {
      cwd,
      env: cliEnv(home),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/\.mcp\.json \(MCP servers sneaky\) was not loaded because it is not trusted/);
    expect(result.stderr).not.toContain(".gyre/ settings");
  });

  it("reports a server that misses mcpStartupTimeoutMs and runs without it", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ mcpStartupTimeoutMs: 800 }));
    await writeFile(
      join(home, "mcp.json"),
      servers({ stuck: { command: process.execPath, args: [trouble, "--no-initialize"] } }),
    );
    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "answered anyway" }] }]));
    const started = Date.now();
    const result = await runCli(["--provider", "faux", "--faux-script", script, "-p", "hi"], {
      cwd,
      env: cliEnv(home),
    });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("answered anyway\n");
    expect(result.stderr).toMatch(
      /MCP server "stuck" (did not finish connecting within 800 ms|failed to connect: no answer to initialize within 800 ms)/,
    );
  });
});

describe("gyre mcp add, list, get, remove", () => {
  it("writes a pre-registered OAuth client and the elicitation setting, and keeps literal secrets out of project files", async () => {
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home);
    const url = "http://127.0.0.1:9/mcp";
    const base = ["mcp", "add", "--transport", "http", "corp", url, "--client-id", "gyre-cli"];
    const added = await runCli(
      [...base, "--client-secret", "s3", "--callback-port", "8765", "--elicitation", "defaults"],
      {
        cwd,
        env,
      },
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(await readFile(join(home, "mcp.json"), "utf8")).mcpServers.corp).toEqual({
      type: "http",
      url,
      oauth: { clientId: "gyre-cli", clientSecret: "s3", callbackPort: 8765 },
      elicitation: "defaults",
    });
    const literal = await runCli([...base, "--client-secret", "s3", "--scope", "project"], { cwd, env });
    expect(literal.code).toBe(2);
    expect(literal.stderr).toMatch(/--client-secret there must be a variable such as '\$\{MY_CLIENT_SECRET\}'/);
    const variable = await runCli([...base, "--client-secret", "${CORP_SECRET}", "--scope", "project"], { cwd, env });
    expect(variable.code).toBe(0);
    expect(JSON.parse(await readFile(join(cwd, ".mcp.json"), "utf8")).mcpServers.corp.oauth.clientSecret).toBe(
      "${CORP_SECRET}",
    );
    const orphan = await runCli(["mcp", "add", "--transport", "http", "x", url, "--client-secret", "s"], { cwd, env });
    expect(orphan).toMatchObject({ code: 2, stderr: expect.stringMatching(/--client-secret needs --client-id/) });
    const stdio = await runCli(["mcp", "add", "x", "--client-id", "a", "--", "node"], { cwd, env });
    expect(stdio).toMatchObject({ code: 2, stderr: expect.stringMatching(/are for http and sse servers/) });
  });

  it("adds servers to the user and project files, lists them connected, shows one, and removes them", async () => {
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home);
    const added = await runCli(
      ["mcp", "add", "everything", "-e", "FOO=bar", "--", process.execPath, everything, "stdio"],
      { cwd, env },
    );
    expect(added).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/Added MCP server "everything" \(user scope\)/),
    });
    const file = JSON.parse(await readFile(join(home, "mcp.json"), "utf8"));
    expect(file).toEqual({
      mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"], env: { FOO: "bar" } } },
    });
    expect((await stat(join(home, "mcp.json"))).mode & 0o777).toBe(0o600);
    await runCli(
      [
        "mcp",
        "add",
        "--transport",
        "http",
        "--scope",
        "project",
        "remote",
        "http://127.0.0.1:9/mcp",
        "-H",
        "Authorization: Bearer x",
      ],
      { cwd, env },
    );
    expect(JSON.parse(await readFile(join(cwd, ".mcp.json"), "utf8")).mcpServers.remote).toEqual({
      type: "http",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: "Bearer x" },
    });
    const list = await runCli(["mcp", "list", "--verbose"], { cwd, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^everything {2}connected {2}\d+ tools {2}user/m);
    expect(list.stdout).toMatch(/tools: .*echo/);
    expect(list.stdout).toMatch(/^remote {2}not started {2}project .*not trusted/m);
    const get = await runCli(["mcp", "get", "everything"], { cwd, env });
    expect(get.stdout).toMatch(/env: FOO \(values not shown\)/);
    expect(get.stdout).not.toContain("bar");
    expect(get.stdout).toMatch(/tool echo: /);
    expect((await runCli(["mcp", "remove", "everything"], { cwd, env })).stdout).toMatch(
      /Removed MCP server "everything" \(user scope\)/,
    );
    const again = await runCli(["mcp", "remove", "everything"], { cwd, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No MCP server named "everything"/);
  });

  it("lists a failing server with its error and stderr tail", async () => {
    const { cwd, home } = await createWorkspace();
    const crasher = join(home, "crasher.mjs");
    await writeFile(crasher, 'process.stderr.write("cannot find config file /x.toml\\n"); process.exit(4);');
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, "mcp.json"),
      servers({
        broken: { command: process.execPath, args: [crasher] },
        unset: { command: "x", args: ["${GYRE_TEST_UNSET}"] },
      }),
    );
    const list = await runCli(["mcp", "list", "--verbose"], { cwd, env: cliEnv(home) });
    expect(list.stdout).toMatch(/^broken {2}failed {2}user/m);
    expect(list.stdout).toMatch(/cannot find config file \/x\.toml/);
    expect(list.stdout).toMatch(/^unset {2}disabled .*\$\{GYRE_TEST_UNSET\} is not set/m);
  });

  it("explains bad usage", async () => {
    const { cwd, home } = await createWorkspace();
    const env = cliEnv(home);
    expect(await runCli(["mcp", "add", "x"], { cwd, env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs the command after --/),
    });
    expect(await runCli(["mcp", "add", "bad name", "--", "x"], { cwd, env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/may use only letters/),
    });
    expect(await runCli(["mcp", "frobnicate"], { cwd, env })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Unknown command gyre mcp frobnicate/),
    });
  });
});
