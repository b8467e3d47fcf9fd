// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} configuration text, not templates
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandVariables } from "./expand-variables.js";
import { describeServerConfig, loadMcpServers, parseServerConfig } from "./mcp-config.js";
import { createStderrRing } from "./stderr-ring.js";

async function folders() {
  const root = await mkdtemp(join(tmpdir(), "gyre-mcp-config-"));
  const home = join(root, "home");
  const cwd = join(root, "project");
  await mkdir(home);
  await mkdir(cwd);
  return { home, cwd, root };
}

const json = (servers: unknown) => JSON.stringify({ mcpServers: servers });

describe("expandVariables", () => {
  it("expands ${VAR} and ${VAR:-default} and names what is missing", () => {
    expect(expandVariables("a ${A} b ${B:-two} c ${C:-}", { A: "one" })).toEqual({ ok: true, value: "a one b two c " });
    expect(expandVariables("${EMPTY:-fallback}", { EMPTY: "" })).toEqual({ ok: true, value: "fallback" });
    expect(expandVariables("${X} and ${Y}", {})).toEqual({ ok: false, missing: ["X", "Y"] });
    expect(expandVariables("$HOME stays", { HOME: "/h" })).toEqual({ ok: true, value: "$HOME stays" });
  });
});

describe("parseServerConfig", () => {
  it("reads the Claude Code shapes: stdio without a type, http with headers, sse", () => {
    expect(
      parseServerConfig("a", { command: "npx", args: ["-y", "${PKG}"], env: { TOKEN: "${T}" } }, { PKG: "p", T: "t" }),
    ).toEqual({
      ok: true,
      config: { type: "stdio", command: "npx", args: ["-y", "p"], env: { TOKEN: "t" } },
    });
    expect(
      parseServerConfig(
        "b",
        { type: "http", url: "${BASE:-http://127.0.0.1:1}/mcp", headers: { Authorization: "Bearer ${K}" } },
        { K: "k" },
      ),
    ).toEqual({
      ok: true,
      config: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer k" } },
    });
    expect(parseServerConfig("c", { type: "sse", url: "http://127.0.0.1:2/sse" }, {})).toMatchObject({
      ok: true,
      config: { type: "sse" },
    });
  });

  it("explains each unusable configuration in one sentence", () => {
    const problem = (raw: unknown, env = {}) => {
      const parsed = parseServerConfig("s", raw, env);
      return parsed.ok ? "" : parsed.problem;
    };
    expect(problem({ command: "x", env: { TOKEN: "${GITHUB_TOKEN}" } })).toBe(
      'MCP server "s": ${GITHUB_TOKEN} is not set; set it in the environment or write ${NAME:-default}.',
    );
    expect(problem({ args: [] })).toMatch(/"command" must be a non-empty string/);
    expect(problem({ type: "ws", url: "ws://x" })).toMatch(/unknown "type" "ws"/);
    expect(problem({ type: "http", url: "not a url" })).toMatch(/is not a valid URL/);
    expect(problem({ command: "x", toolTimeoutMs: -1 })).toMatch(/"toolTimeoutMs" must be a positive number/);
  });

  it("describes what a server runs, quoting where a shell would need it", () => {
    expect(describeServerConfig({ type: "stdio", command: "npx", args: ["-y", "a b"], env: {} })).toBe("npx -y 'a b'");
    expect(describeServerConfig({ type: "http", url: "http://127.0.0.1/mcp", headers: {} })).toBe(
      "HTTP http://127.0.0.1/mcp",
    );
  });
});

describe("loadMcpServers", () => {
  it("reads the project's .mcp.json only when trusted; later scopes replace earlier ones by name", async () => {
    const { home, cwd, root } = await folders();
    await writeFile(join(home, "mcp.json"), json({ shared: { command: "user-cmd" }, mine: { command: "mine" } }));
    await writeFile(join(cwd, ".mcp.json"), json({ shared: { command: "project-cmd" } }));
    const flag = join(root, "extra.json");
    await writeFile(flag, json({ mine: { type: "http", url: "http://127.0.0.1:9/mcp" } }));
    const untrusted = await loadMcpServers({ gyreHome: home, cwd, trusted: false, configFiles: [], env: {} });
    expect(untrusted.servers.map((server) => [server.name, server.scope])).toEqual([
      ["shared", "user"],
      ["mine", "user"],
    ]);
    const trusted = await loadMcpServers({ gyreHome: home, cwd, trusted: true, configFiles: [flag], env: {} });
    expect(trusted.servers.map((server) => [server.name, server.scope, server.config.type])).toEqual([
      ["shared", "project", "stdio"],
      ["mine", "flag", "http"],
    ]);
    expect(
      (await loadMcpServers({ gyreHome: home, cwd, trusted: true, configFiles: [flag], env: {}, noMcp: true })).servers,
    ).toEqual([]);
  });

  it("warns about a broken user file, keeps unusable servers apart, and throws for a missing --mcp-config file", async () => {
    const { home, cwd, root } = await folders();
    await writeFile(join(home, "mcp.json"), "{ not json");
    await writeFile(join(cwd, ".mcp.json"), json({ bad: { command: "x", args: ["${NOPE}"] }, good: { command: "y" } }));
    const loaded = await loadMcpServers({ gyreHome: home, cwd, trusted: true, configFiles: [], env: {} });
    expect(loaded.warnings[0]).toMatch(/mcp\.json is not valid JSON .* Its MCP servers were not started\./);
    expect(loaded.servers.map((server) => server.name)).toEqual(["good"]);
    expect(loaded.unusable).toMatchObject([
      { name: "bad", scope: "project", problem: expect.stringMatching(/\$\{NOPE\} is not set/) },
    ]);
    await expect(
      loadMcpServers({ gyreHome: home, cwd, trusted: false, configFiles: [join(root, "none.json")], env: {} }),
    ).rejects.toThrow(/--mcp-config .*none\.json does not exist/);
  });
});

describe("createStderrRing", () => {
  it("keeps the last lines within its bounds, joining partial chunks and cutting huge lines", () => {
    const ring = createStderrRing({ maxLines: 3, maxBytes: 5000 });
    ring.push("one\ntw");
    ring.push("o\nthree\nfour\n");
    expect(ring.tail()).toEqual(["two", "three", "four"]);
    ring.push(`${"z".repeat(3000)}\n`);
    expect(ring.tail().at(-1)).toMatch(/^z{1000}… \(3000 chars\)$/);
    for (let i = 0; i < 10_000; i++) ring.push(`${"q".repeat(900)}\n`);
    expect(ring.tail(100).join("\n").length).toBeLessThanOrEqual(5000 + 100);
    expect(ring.droppedBytes).toBeGreaterThan(8_000_000);
  });
});

describe("the oauth and elicitation settings of a server", () => {
  it("reads a pre-registered client, expanding ${VAR} in its secret", () => {
    const raw = {
      type: "http",
      url: "https://mcp.example/mcp",
      elicitation: "defaults",
      oauth: { clientId: "gyre-cli", clientSecret: "${SECRET}", callbackPort: 8765 },
    };
    expect(parseServerConfig("corp", raw, { SECRET: "s3" })).toEqual({
      ok: true,
      config: {
        type: "http",
        url: "https://mcp.example/mcp",
        headers: {},
        elicitation: "defaults",
        oauth: { clientId: "gyre-cli", clientSecret: "s3", callbackPort: 8765 },
      },
    });
  });

  it("refuses what cannot work, each with a sentence", () => {
    const http = (extra: Record<string, unknown>) => ({ type: "http", url: "https://mcp.example/mcp", ...extra });
    const problem = (raw: unknown) => {
      const parsed = parseServerConfig("s", raw, {});
      return parsed.ok ? "accepted" : parsed.problem;
    };
    expect(problem(http({ oauth: { clientSecret: "x" } }))).toContain('"oauth.clientSecret" needs "oauth.clientId"');
    expect(problem(http({ oauth: { clientMetadataUrl: "http://gyre.example/client.json" } }))).toContain(
      "must be an https URL with a path",
    );
    expect(problem(http({ oauth: { callbackPort: 70000 } }))).toContain("must be a port number");
    expect(problem(http({ oauth: { clientID: "typo" } }))).toContain('unknown "oauth" field "clientID"');
    expect(problem(http({ elicitation: "accept" }))).toContain('"elicitation" must be "decline" or "defaults"');
    expect(problem(http({ oauth: { clientId: "${UNSET}" } }))).toContain("${UNSET} is not set");
  });
});
