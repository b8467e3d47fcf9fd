import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runMcpCommand } from "../../src/commands/mcp/run-mcp-command.js";
import { createMcpManager, type McpManager } from "../../src/core/mcp/mcp-manager.js";

const authServer = fileURLToPath(new URL("./fixtures/oauth-server.mjs", import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Stats = { registrations: number; authorizations: number; codeGrants: number; refreshGrants: number };

/** Starts the local authorization + MCP server; resolves with its base URL. */
async function startAuthServer(ttlSeconds: number): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [authServer], {
    env: { ...process.env, ACCESS_TTL_S: String(ttlSeconds) },
  });
  cleanups.push(() => {
    child.kill();
  });
  const port = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`the auth server exited ${code}`)));
  });
  return `http://127.0.0.1:${port}`;
}

async function stats(base: string): Promise<Stats> {
  return (await (await fetch(`${base}/stats`)).json()) as Stats;
}

async function homeWithServer(base: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "gyre-oauth-"));
  await writeFile(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { web: { type: "http", url: `${base}/mcp` } } }),
  );
  return home;
}

/** A run's MCP manager for the server "web" at `base`, with tokens from `home`. */
function manageAt(home: string, base: string): McpManager {
  const manager = createMcpManager({
    servers: [
      {
        name: "web",
        scope: "user",
        file: join(home, "mcp.json"),
        config: { type: "http", url: `${base}/mcp`, headers: {} },
      },
    ],
    cwd: home,
    env: process.env,
    clientVersion: "test",
    gyreHome: home,
    restartDelaysMs: [],
  });
  cleanups.push(() => manager.close());
  return manager;
}

/** `gyre mcp login web`, with the test as the browser: it follows the printed URL to the callback. */
async function login(home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const browsed = new Promise<void>((resolve, reject) => {
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /^\s+(http\S+)$/m.exec(out)?.[1];
      if (!url || out.includes("#browsed")) return;
      out += "#browsed";
      // fetch follows the authorize redirect to gyre's 127.0.0.1 callback, like a browser.
      fetch(url).then(
        (response) => (response.ok ? resolve() : reject(new Error(`callback answered ${response.status}`))),
        reject,
      );
    });
  });
  const code = await runMcpCommand(["login", "web", "--timeout", "10000"], {
    cwd: home,
    env: { GYRE_HOME: home, BROWSER: "none" },
    stdout,
    stderr,
  });
  if (code === 0) await browsed;
  return { code, stdout: out.replace("#browsed", ""), stderr: err };
}

const context = () => ({ toolCallId: "call-1", signal: new AbortController().signal });

describe("OAuth for remote MCP servers", () => {
  it("refuses to connect before a login and names gyre mcp login", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    const [status] = manager.statuses();
    expect(status?.state).toBe("failed");
    expect(status?.error).toContain("gyre mcp login web");
  });

  it("logs in with registration and PKCE, stores the tokens 0600, and calls the protected tool", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    const result = await login(home);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Logged in to MCP server "web"`);
    const file = join(home, "mcp-auth", "web.json");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, "mcp-auth"))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(file, "utf8")) as {
      tokens: { access_token: string };
      codeVerifier?: string;
    };
    expect(saved.tokens.access_token).toMatch(/^at-/);
    expect(saved.codeVerifier).toBeUndefined();
    expect(result.stdout).not.toContain(saved.tokens.access_token);
    expect(await stats(base)).toMatchObject({ registrations: 1, authorizations: 1, codeGrants: 1 });

    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]).toMatchObject({ state: "connected", toolCount: 1 });
    const whoami = manager.tools().find((tool) => tool.name === "mcp__web__whoami");
    const answer = await whoami?.execute({}, context());
    expect(answer?.content).toEqual([{ type: "text", text: expect.stringMatching(/^client /) }]);
  });

  it("refreshes an expired access token and goes on calling", async () => {
    const base = await startAuthServer(1);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const before = JSON.parse(await readFile(join(home, "mcp-auth", "web.json"), "utf8")) as {
      tokens: { access_token: string };
    };
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]?.state).toBe("connected");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const whoami = manager.tools().find((tool) => tool.name === "mcp__web__whoami");
    const answer = await whoami?.execute({}, context());
    expect(answer?.content).toEqual([{ type: "text", text: expect.stringMatching(/^client /) }]);
    expect((await stats(base)).refreshGrants).toBeGreaterThanOrEqual(2);
    const after = JSON.parse(await readFile(join(home, "mcp-auth", "web.json"), "utf8")) as {
      tokens: { access_token: string };
    };
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
  });

  it("says to log in again when the server refused the refresh token, and keeps no token", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    await fetch(`${base}/forget-tokens`, { method: "POST" });
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]).toMatchObject({ state: "failed" });
    expect(manager.statuses()[0]?.error).toContain("gyre mcp login web");
    const saved = JSON.parse(await readFile(join(home, "mcp-auth", "web.json"), "utf8")) as { tokens?: unknown };
    expect(saved.tokens).toBeUndefined();
  });

  it("logs out by deleting the stored tokens", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await runMcpCommand(["logout", "web"], {
      cwd: home,
      env: { GYRE_HOME: home },
      stdout,
      stderr: stdout,
    });
    expect(code).toBe(0);
    expect(out).toContain("tokens were deleted");
    await expect(stat(join(home, "mcp-auth", "web.json"))).rejects.toThrow();
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]?.error).toContain("gyre mcp login web");
  });
});
