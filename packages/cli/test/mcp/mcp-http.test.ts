import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager } from "../../src/core/mcp/mcp-manager.js";
import { loadMcpSdk } from "../../src/core/mcp/open-transport.js";
import type { McpServerEntry } from "../../src/core/mcp/types.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(async () => {
  await loadMcpSdk();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Starts server-everything in its HTTP mode (`streamableHttp` or `sse`) on a free port; resolves once it listens. */
async function startEverything(mode: "streamableHttp" | "sse"): Promise<number> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [everything, mode], {
    env: { ...process.env, PORT: String(port) },
  });
  cleanups.push(() => {
    child.kill();
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) resolve();
    });
    child.on("exit", (code) => reject(new Error(`server-everything ${mode} exited ${code}: ${output}`)));
  });
  return port;
}

function manage(servers: McpServerEntry[]): McpManager {
  const manager = createMcpManager({ servers, cwd: tmpdir(), env: process.env, clientVersion: "test" });
  cleanups.push(() => manager.close());
  return manager;
}

const remote = (
  name: string,
  type: "http" | "sse",
  url: string,
  headers: Record<string, string> = {},
): McpServerEntry => ({
  name,
  scope: "user",
  file: "test",
  config: { type, url, headers },
});

const context = () => ({ toolCallId: "call-1", signal: new AbortController().signal });

describe("MCP over HTTP", () => {
  it("calls server-everything over streamable HTTP", async () => {
    const port = await startEverything("streamableHttp");
    const manager = manage([remote("web", "http", `http://127.0.0.1:${port}/mcp`)]);
    await manager.waitForStartup(15_000);
    expect(manager.statuses()[0]).toMatchObject({ state: "connected", transport: "http" });
    const echo = manager.tools().find((tool) => tool.name === "mcp__web__echo");
    expect((await echo?.execute({ message: "over http" }, context()))?.content).toEqual([
      { type: "text", text: "Echo: over http" },
    ]);
  });

  it("calls server-everything over legacy SSE, named or found by falling back from streamable HTTP", async () => {
    const port = await startEverything("sse");
    const manager = manage([
      remote("named", "sse", `http://127.0.0.1:${port}/sse`),
      remote("fallback", "http", `http://127.0.0.1:${port}/sse`),
    ]);
    await manager.waitForStartup(15_000);
    expect(manager.statuses().map((status) => status.state)).toEqual(["connected", "connected"]);
    for (const name of ["mcp__named__echo", "mcp__fallback__echo"]) {
      const echo = manager.tools().find((tool) => tool.name === name);
      expect((await echo?.execute({ message: name }, context()))?.content).toEqual([
        { type: "text", text: `Echo: ${name}` },
      ]);
    }
  });

  it("sends the configured headers on every request, and reports an HTTP error", async () => {
    const seen: { method: string | undefined; authorization: string | undefined }[] = [];
    const server = createServer((request, response) => {
      seen.push({ method: request.method, authorization: request.headers.authorization });
      response.writeHead(403).end("forbidden");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const manager = manage([
      remote("locked", "http", `http://127.0.0.1:${port}/mcp`, { Authorization: "Bearer t0ken" }),
    ]);
    await manager.waitForStartup(10_000);
    expect(manager.statuses()[0]).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/403|Forbidden|forbidden/),
    });
    expect(seen.map((request) => request.method)).toEqual(expect.arrayContaining(["POST", "GET"]));
    expect(seen.every((request) => request.authorization === "Bearer t0ken")).toBe(true);
  });
});
