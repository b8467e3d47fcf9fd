// MCP costs, side by side with what a user would otherwise run:
//   start-up: `gyre -p` (faux model) with 0, 1 and 5 configured servers (server-memory, stdio), and
//             `gyre --version`; headless runs wait for every server, so this is the real price;
//   per call: an MCP tool call through gyre's AgentTool vs the SDK's own Client.callTool on the
//             same server-everything process (echo), interleaved, median of N.
//   vs Pi:    Pi 1.6.0 ships MCP built in (dist/extensions/mcp), so `-p hi` with 0 and 1 configured
//             server runs side by side with Pi, both on Node 24 against one local fake model server,
//             and each says whether it started the server during the run.
// Usage: node bench/mcp.mjs [--rounds 5] [--calls 200] [--no-pi]   (needs the bundle: npm run build)
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { startFakeModelServer } from "../packages/cli/test/helpers/fake-model-server.mjs";
import { createAgents } from "./lib/agents.mjs";
import { ensurePiLatest } from "./lib/pi-install.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "packages/cli/package.json"));
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(argv[index + 1]);
};
const rounds = option("rounds", 5);
const calls = option("calls", 200);
const gyreBin = path.join(root, "packages/cli/bin/gyre.js");
const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const everythingServer = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function timeRun(args, options) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [gyreBin, ...args], { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`gyre exited ${code}: ${stderr}`)),
    );
  });
}

/** A GYRE_HOME with `count` server-memory servers in mcp.json, and a faux script. */
async function createHome(count) {
  const home = await mkdtemp(path.join(tmpdir(), `gyre-bench-mcp-${count}-`));
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `memory${index}`,
      {
        command: process.execPath,
        args: [memoryServer],
        env: { MEMORY_FILE_PATH: path.join(home, `memory${index}.jsonl`) },
      },
    ]),
  );
  if (count > 0) await writeFile(path.join(home, "mcp.json"), JSON.stringify({ mcpServers: servers }));
  const script = path.join(home, "script.json");
  await writeFile(script, JSON.stringify({ responses: [{ content: [{ type: "text", text: "ok" }] }] }));
  return { home, cwd, script };
}

/** A script that starts node, connects the SDK's client to `count` server-memory servers at once, and exits: the floor. */
async function writeSdkBaseline() {
  const dir = await mkdtemp(path.join(root, "node_modules", ".cache-gyre-bench-mcp-sdk-"));
  const file = path.join(dir, "connect.mjs");
  await writeFile(
    file,
    `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const count = Number(process.argv[2]);
const clients = await Promise.all(Array.from({ length: count }, async () => {
  const client = new Client({ name: "baseline", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(memoryServer)}], stderr: "ignore" }));
  await client.listTools();
  return client;
}));
await Promise.all(clients.map((client) => client.close()));
`,
  );
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

function timeNode(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: "ignore" });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`baseline exited ${code}`)),
    );
  });
}

async function benchStartup() {
  const homes = await Promise.all([0, 1, 5].map(createHome));
  const baseline = await writeSdkBaseline();
  const times = { version: [], 0: [], 1: [], 5: [], sdk1: [], sdk5: [] };
  const env = (home) => ({ PATH: process.env.PATH, HOME: home, GYRE_HOME: home });
  for (let round = 0; round < rounds + 1; round++) {
    const [zero] = homes;
    const version = await timeRun(["--version"], { cwd: zero.cwd, env: env(zero.home) });
    if (round > 0) times.version.push(version);
    for (const [index, count] of [0, 1, 5].entries()) {
      const { home, cwd, script } = homes[index];
      const ms = await timeRun(["--provider", "faux", "--faux-script", script, "--no-session", "-p", "hi"], {
        cwd,
        env: env(home),
      });
      if (round > 0) times[count].push(ms);
      if (count > 0) {
        const floor = await timeNode([baseline.file, String(count)]);
        if (round > 0) times[`sdk${count}`].push(floor);
      }
    }
  }
  await baseline.cleanup();
  await Promise.all(homes.map(({ home }) => rm(home, { recursive: true, force: true })));
  return times;
}

/** gyre's client modules, bundled from source into a temp file that can still resolve the SDK. */
async function loadGyreMcp() {
  const outDir = await mkdtemp(path.join(root, "node_modules", ".cache-gyre-bench-mcp-"));
  const outfile = path.join(outDir, "mcp.mjs");
  await build({
    entryPoints: [path.join(root, "packages/cli/src/core/mcp/mcp-manager.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    alias: {
      "@gyre/agent": path.join(root, "packages/agent/src/index.ts"),
      "@gyre/ai": path.join(root, "packages/ai/src/index.ts"),
    },
    outfile,
    logLevel: "error",
  });
  return {
    module: await import(pathToFileURL(outfile).href),
    cleanup: () => rm(outDir, { recursive: true, force: true }),
  };
}

/** Estimated tokens of the tool definitions sent each turn with 100 MCP tools, without and with tool_search. */
async function benchToolSearch(module) {
  const manyServer = path.join(root, "packages/cli/test/mcp/fixtures/trouble-server.mjs");
  const tokens = {};
  for (const [label, threshold] of [
    ["all", Number.POSITIVE_INFINITY],
    ["search", undefined],
  ]) {
    const manager = module.createMcpManager({
      servers: [
        {
          name: "many",
          scope: "user",
          file: "bench",
          config: { type: "stdio", command: process.execPath, args: [manyServer, "--many", "100"], env: {} },
        },
      ],
      cwd: root,
      env: process.env,
      clientVersion: "bench",
      ...(threshold !== undefined ? { toolSearchThresholdTokens: threshold } : {}),
    });
    await manager.waitForStartup(30_000);
    const sent = () =>
      Math.ceil(
        JSON.stringify(manager.tools().map(({ name, description, parameters }) => ({ name, description, parameters })))
          .length / 4,
      );
    tokens[label] = { count: manager.tools().length, tokens: sent() };
    if (label === "search") {
      await manager
        .tools()[0]
        .execute({ query: "weather records", limit: 5 }, { toolCallId: "b", signal: new AbortController().signal });
      tokens.loaded = { count: manager.tools().length, tokens: sent() };
    }
    await manager.close();
  }
  return tokens;
}

async function benchCalls() {
  const { module, cleanup } = await loadGyreMcp();
  const toolSearch = await benchToolSearch(module);
  const { Client } = await import(pathToFileURL(require.resolve("@modelcontextprotocol/sdk/client/index.js")).href);
  const { StdioClientTransport } = await import(
    pathToFileURL(require.resolve("@modelcontextprotocol/sdk/client/stdio.js")).href
  );
  const manager = module.createMcpManager({
    servers: [
      {
        name: "everything",
        scope: "user",
        file: "bench",
        config: { type: "stdio", command: process.execPath, args: [everythingServer, "stdio"], env: {} },
      },
    ],
    cwd: root,
    env: process.env,
    clientVersion: "bench",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [everythingServer, "stdio"], stderr: "ignore" }),
  );
  await manager.waitForStartup(30_000);
  const echo = manager.tools().find((tool) => tool.name === "mcp__everything__echo");
  const context = { toolCallId: "bench", signal: new AbortController().signal };
  const gyre = [];
  const sdk = [];
  for (let index = 0; index < calls + 20; index++) {
    let started = performance.now();
    await echo.execute({ message: "ping" }, context);
    if (index >= 20) gyre.push(performance.now() - started);
    started = performance.now();
    await client.callTool({ name: "echo", arguments: { message: "ping" } });
    if (index >= 20) sdk.push(performance.now() - started);
  }
  await manager.close();
  await client.close();
  await cleanup();
  return { gyre: median(gyre), sdk: median(sdk), toolSearch };
}

/** Times one spawn spec to its exit; rejects when it fails, since its time would be meaningless. */
function timeSpec(spec, label) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${label} exited ${code}: ${stderr.slice(0, 400)}`)),
    );
  });
}

/**
 * `-p hi` with 0 and 1 server-memory servers, gyre and Pi 1.6.0 interleaved on Pi's Node. The
 * server is started through a shell that appends to a marker file, so each side's row says
 * whether the run really started it.
 */
async function benchAgainstPi() {
  const pi = await ensurePiLatest();
  if (!pi.ok) return { skipped: pi.reason };
  const server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
  const sets = [0, 1].map(() => createAgents({ serverUrl: server.url, piCli: pi.cli, node: pi.node }));
  const markers = [];
  for (const [count, agents] of sets.entries()) {
    const marker = {
      gyre: path.join(agents.workspace, "..", "gyre-started"),
      pi: path.join(agents.workspace, "..", "pi-started"),
    };
    markers.push(marker);
    if (count === 0) continue;
    const serverFor = (file) => ({
      mcpServers: {
        memory: { command: "sh", args: ["-c", `echo x >> "${file}"; exec "${process.execPath}" "${memoryServer}"`] },
      },
    });
    await writeFile(path.join(agents.gyre([]).env.GYRE_HOME, "mcp.json"), JSON.stringify(serverFor(marker.gyre)));
    await writeFile(path.join(agents.pi([]).env.PI_CODING_AGENT_DIR, "mcp.json"), JSON.stringify(serverFor(marker.pi)));
  }
  const times = { gyre0: [], pi0: [], gyre1: [], pi1: [] };
  for (let round = 0; round < rounds + 1; round++) {
    for (const [count, agents] of sets.entries()) {
      for (const side of ["gyre", "pi"]) {
        const ms = await timeSpec(agents[side](["--no-session", "-p", "hi"]), `${side} with ${count} servers`);
        if (round > 0) times[`${side}${count}`].push(ms);
      }
    }
  }
  const { readFile } = await import("node:fs/promises");
  const startedCount = async (file) =>
    (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  const started = { gyre: await startedCount(markers[1].gyre), pi: await startedCount(markers[1].pi) };
  await server.close();
  for (const agents of sets) agents.cleanup();
  return { times, started, runs: rounds + 1, version: pi.version };
}

const format = (value) => value.toFixed(1);
const startup = await benchStartup();
console.log(
  `mcp start-up (median ms of ${rounds}, faux model, server-memory over stdio; second figure: node + the SDK's client connecting the same servers)`,
);
console.log(`gyre --version  ${format(median(startup.version))}`);
for (const count of [0, 1, 5]) {
  const floor = count > 0 ? `  ${format(median(startup[`sdk${count}`]))}` : "";
  console.log(`gyre -p with ${count} servers  ${format(median(startup[count]))}${floor}`);
}
const perCall = await benchCalls();
console.log(
  `mcp tool call, echo on server-everything (median ms/call of ${calls})  ${format(perCall.gyre)}  ${format(perCall.sdk)}`,
);
const { toolSearch } = perCall;
console.log(
  `tool definitions per turn, 100 MCP tools (estimated tokens)  ${toolSearch.search.tokens}  ${toolSearch.all.tokens}  (tool_search alone: ${toolSearch.search.count} tool; after loading 5: ${toolSearch.loaded.tokens} tokens, ${toolSearch.loaded.count} tools; all: ${toolSearch.all.count} tools)`,
);
if (argv.includes("--no-pi")) {
  console.log("mcp start-up vs Pi: skipped (--no-pi)");
} else {
  const versus = await benchAgainstPi();
  if (versus.skipped) console.log(`mcp start-up vs Pi: skipped (${versus.skipped})`);
  else {
    console.log(
      `mcp start-up vs Pi ${versus.version} (median ms of ${rounds}, -p hi on Node 24, fake model server; gyre  Pi)`,
    );
    for (const count of [0, 1])
      console.log(
        `-p with ${count} servers  ${format(median(versus.times[`gyre${count}`]))}  ${format(median(versus.times[`pi${count}`]))}`,
      );
    console.log(
      `server started in ${versus.runs} runs with 1 server: gyre ${versus.started.gyre} times, Pi ${versus.started.pi} times`,
    );
  }
}
