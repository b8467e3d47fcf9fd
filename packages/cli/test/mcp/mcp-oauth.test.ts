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

type Stats = {
  registrations: number;
  authorizations: number;
  codeGrants: number;
  refreshGrants: number;
  rejected: number;
  revocations: number;
};

let authChild: ChildProcess | undefined;

/** Starts the local authorization + MCP server; resolves with its base URL. */
async function startAuthServer(ttlSeconds: number, env: Record<string, string> = {}): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [authServer], {
    env: { ...process.env, ACCESS_TTL_S: String(ttlSeconds), ...env },
  });
  authChild = child;
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

  it("refreshes an expired access token before sending it and goes on calling", async () => {
    const base = await startAuthServer(1);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const before = await savedTokens(home);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]?.state).toBe("connected");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const whoami = manager.tools().find((tool) => tool.name === "mcp__web__whoami");
    const answer = await whoami?.execute({}, context());
    expect(answer?.content).toEqual([{ type: "text", text: expect.stringMatching(/^client /) }]);
    // Both times the token was refreshed before a request carried it: the server refused none.
    expect(await stats(base)).toMatchObject({ refreshGrants: expect.any(Number), rejected: 0 });
    expect((await stats(base)).refreshGrants).toBeGreaterThanOrEqual(2);
    expect((await savedTokens(home)).access_token).not.toBe(before.access_token);
  });

  it("refreshes a token in the last fifth of its lifetime, while it is still valid", async () => {
    const base = await startAuthServer(4);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(await stats(base)).toMatchObject({ refreshGrants: 0 });
    const { expiresAt } = JSON.parse(await readFile(join(home, "mcp-auth", "web.json"), "utf8")) as {
      expiresAt: number;
    };
    // 0.4 s before expiry: the old token would still pass, so only an early refresh explains a grant.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - 400 - Date.now())));
    const whoami = manager.tools().find((tool) => tool.name === "mcp__web__whoami");
    expect((await whoami?.execute({}, context()))?.content).toEqual([
      { type: "text", text: expect.stringMatching(/^client /) },
    ]);
    expect(await stats(base)).toMatchObject({ refreshGrants: 1, rejected: 0 });
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

  it("logs out by revoking the tokens at the server and deleting them here", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const { access_token } = await savedTokens(home);
    expect(await callWith(base, access_token)).toBe(200);
    const { code, out } = await logout(home);
    expect(code).toBe(0);
    expect(out).toContain("the server revoked its tokens and they were deleted here");
    expect((await stats(base)).revocations).toBe(2);
    expect(await callWith(base, access_token)).toBe(401);
    await expect(stat(join(home, "mcp-auth", "web.json"))).rejects.toThrow();
    const manager = manageAt(home, base);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]?.error).toContain("gyre mcp login web");
  });

  it("says the tokens stay valid at a server without revocation, and deletes them here", async () => {
    const base = await startAuthServer(60, { NO_REVOCATION: "1" });
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const { code, out } = await logout(home);
    expect(code).toBe(0);
    expect(out).toContain("offers no revocation, so they stay valid there until they expire");
    await expect(stat(join(home, "mcp-auth", "web.json"))).rejects.toThrow();
  });

  it("deletes the tokens and fails with a sentence when the server cannot be reached to revoke them", async () => {
    const base = await startAuthServer(60);
    const home = await homeWithServer(base);
    expect((await login(home)).code).toBe(0);
    const exited = new Promise((resolve) => authChild?.once("exit", resolve));
    authChild?.kill();
    await exited;
    const { code, out } = await logout(home);
    expect(code).toBe(1);
    expect(out).toContain("its tokens were deleted), but revoking them at the server failed");
    await expect(stat(join(home, "mcp-auth", "web.json"))).rejects.toThrow();
  });
});

async function savedTokens(home: string): Promise<{ access_token: string }> {
  return (
    JSON.parse(await readFile(join(home, "mcp-auth", "web.json"), "utf8")) as { tokens: { access_token: string } }
  ).tokens;
}

/** The status a bare MCP `initialize` with `token` gets from the protected server. */
async function callWith(base: string, token: string): Promise<number> {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  await response.body?.cancel();
  return response.status;
}

async function logout(home: string): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await runMcpCommand(["logout", "web"], { cwd: home, env: { GYRE_HOME: home }, stdout, stderr: stdout });
  return { code, out };
}
