/**
 * `sandbox.allowedDomains` end to end: a real HTTP server on 127.0.0.1 outside the sandbox, curl
 * and bash's /dev/tcp inside the real bubblewrap sandbox, reaching out only through gyre's
 * filtering proxy (Unix socket, bridged to 127.0.0.1 inside the sandbox's own network namespace).
 */
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BashSandbox, createBashSandbox } from "../../src/core/sandbox/bash-sandbox.js";
import type { SessionSandbox } from "../../src/core/sandbox/session-sandbox.js";
import { runCommand } from "../../src/core/tools/run-command.js";
import { createSafeEnv } from "../../src/core/tools/safe-env.js";
import { createWorkspace, policyFor, runIn, startSandbox, type Workspace } from "./helpers.js";

let workspace: Workspace;
let server: Server;
let port: number;
const seen: string[] = [];
let byName: SessionSandbox;
let byIp: SessionSandbox;

beforeAll(async () => {
  workspace = await createWorkspace("/var/tmp");
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.headers.host} ${req.url}`);
    res.end(`hello from the host: ${req.url}\n`);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
  byName = await startSandbox(policyFor(workspace, { allowedDomains: ["localhost"] }));
  byIp = await startSandbox(policyFor(workspace, { allowedDomains: ["127.0.0.1", "*.localhost"] }));
});
afterAll(async () => {
  await byName?.dispose();
  await byIp?.dispose();
  await new Promise((done) => server?.close(done));
  await workspace?.cleanup();
});

const sh = (sandbox: SessionSandbox, command: string) => runIn(sandbox, command, { cwd: workspace.cwd });
const curl = (sandbox: SessionSandbox, url: string, flags = "") =>
  sh(sandbox, `curl -sS --max-time 5 ${flags} '${url}'; echo " exit=$?"`);
/** Sends one raw request to the proxy bridge with bash's /dev/tcp and prints the status line. */
const raw = (sandbox: SessionSandbox, request: string) =>
  sh(
    sandbox,
    `port=\${HTTP_PROXY##*:}; exec 3<>/dev/tcp/127.0.0.1/$port; printf '${request}\\r\\n\\r\\n' >&3; head -n 1 <&3`,
  );

describe("the allowedDomains proxy", () => {
  it("lets curl reach a listed host name by a plain HTTP request and through CONNECT", async () => {
    const plain = await curl(byName, `http://localhost:${port}/plain`);
    expect(plain.output).toContain("hello from the host: /plain");
    expect(plain.output).toContain("exit=0");
    const tunnelled = await curl(byName, `http://localhost:${port}/tunnel`, "--proxytunnel");
    expect(tunnelled.output).toContain("hello from the host: /tunnel");
    expect(seen).toContain(`GET localhost:${port} /plain`);
  });

  it("matches the name case-insensitively and with one trailing dot", async () => {
    expect((await curl(byName, `http://LocalHost:${port}/case`)).output).toContain("hello from the host: /case");
    expect((await curl(byName, `http://localhost.:${port}/dot`, "--proxytunnel")).output).toContain(
      "hello from the host: /dot",
    );
  });

  it("refuses names that only contain the listed one, and unlisted IP literals", async () => {
    const before = seen.length;
    for (const host of ["evil.localhost", "localhost.evil.test", "127.0.0.1", "[::1]"]) {
      const plain = await curl(byName, `http://${host}:${port}/x`);
      expect(plain.output, host).toContain("gyre sandbox proxy refused");
      const tunnelled = await curl(byName, `http://${host}:${port}/x`, "--proxytunnel");
      expect(tunnelled.output, host).toMatch(/CONNECT tunnel failed, response 403|Received HTTP code 403/);
    }
    expect(seen.length).toBe(before);
  });

  it("refuses user info and disguised IP forms sent to the proxy directly", async () => {
    const requests = [
      `GET http://localhost@127.0.0.1:${port}/ HTTP/1.1\\r\\nHost: x`,
      `GET http://localhost:${port}@127.0.0.1:${port}/ HTTP/1.1\\r\\nHost: x`,
      `CONNECT localhost@127.0.0.1:${port} HTTP/1.1\\r\\nHost: x`,
      `CONNECT 2130706433:${port} HTTP/1.1\\r\\nHost: x`,
      `CONNECT 0x7f.1:${port} HTTP/1.1\\r\\nHost: x`,
    ];
    const before = seen.length;
    for (const request of requests) {
      expect((await raw(byIp, request)).output, request).toMatch(/^HTTP\/1\.1 40[03]/);
    }
    expect(seen.length).toBe(before);
  });

  it("lets a listed IP through, and *.domain only below the domain", async () => {
    expect((await curl(byIp, `http://127.0.0.1:${port}/ip`)).output).toContain("hello from the host: /ip");
    expect((await curl(byIp, `http://localhost:${port}/bare`)).output).toContain("not in sandbox.allowedDomains");
  });

  it("leaves no way around the proxy: a direct connection finds nothing", async () => {
    const direct = await curl(byName, `http://localhost:${port}/direct`, "--noproxy '*'");
    expect(direct.output).toMatch(/Failed to connect|Couldn't connect/);
    expect(direct.output).not.toContain("hello from the host");
  });
});

describe("the proxy's lifetime", () => {
  it("starts with the sandbox and is gone, socket folder included, once the sandbox is disposed", async () => {
    const sandbox = await startSandbox(policyFor(workspace, { allowedDomains: ["localhost"] }));
    expect((await sh(sandbox, "true")).code).toBe(0);
    const proxy = await sandbox.proxy();
    if (!proxy) throw new Error("the sandbox started no proxy");
    expect((await stat(proxy.socketPath)).isSocket()).toBe(true);
    await sandbox.dispose();
    await expect(stat(proxy.dir)).rejects.toThrow(/ENOENT/);
  });

  it("starts no proxy without allowedDomains or with the network on", async () => {
    for (const overrides of [{}, { allowedDomains: ["localhost"], network: true }]) {
      const sandbox = await startSandbox(policyFor(workspace, overrides));
      expect(await sandbox.proxy()).toBeUndefined();
      expect((await sh(sandbox, 'echo "[$HTTP_PROXY]"')).output).toContain("[]");
      await sandbox.dispose();
    }
  });
});

describe("the bash tool's explanation", () => {
  let bash: BashSandbox;
  afterAll(() => bash?.dispose());

  it("names the refused host and the allowlist in the tool result", async () => {
    const { mode: _mode, ...policy } = policyFor(workspace, { allowedDomains: ["localhost"] });
    bash = createBashSandbox({ mode: "workspace-write", policy });
    expect(await bash.describe()).toBe("workspace-write, network: 1 allowed domain (proxy)");
    const prepared = await bash.prepare();
    if (!prepared.ok) throw new Error(prepared.error);
    const outcome = await runCommand({
      launch: prepared.launch,
      command: `curl -sS --max-time 5 --proxytunnel http://example.invalid:${port}/`,
      cwd: workspace.cwd,
      shell: "bash",
      env: createSafeEnv(process.env),
      signal: new AbortController().signal,
      timeoutMs: 15_000,
      killGraceMs: 500,
      tempDir: undefined,
      maxLines: 200,
      maxBytes: 20_000,
      updateIntervalMs: 100,
      onOutput: undefined,
    });
    const hint = prepared.explain(outcome.output.tail);
    expect(hint).toContain(
      `The network proxy refused example.invalid:${port}: the host example.invalid is not in sandbox.allowedDomains (localhost)`,
    );
  });
});
