// The cost of the bash sandbox per call, side by side (issue 15: target ≤ 10 ms over bare bash):
//   bare `bash -c true`; Codex-style one bwrap start per call (the same mount plan gyre uses);
//   gyre's bash tool on the host (--sandbox off) and in the session sandbox (one bwrap per session,
//   a supervisor inside spawning each command), also with `allowedDomains` (the filtering proxy and
//   its bridge running; each command gets the proxy variables), and one HTTP GET by curl to a server
//   on 127.0.0.1: directly from the host tool vs through the proxy from the sandbox. Medians of N
//   interleaved calls.
// Usage: node bench/sandbox.mjs [--iterations 100]
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const at = argv.indexOf("--iterations");
const iterations = at === -1 ? 100 : Number(argv[at + 1]);

async function loadModules() {
  const outDir = await mkdtemp(path.join(root, "node_modules", ".cache-gyre-bench-sandbox-"));
  const entry = path.join(outDir, "entry.ts");
  const src = (file) => JSON.stringify(path.join(root, "packages/cli/src/core", file));
  await import("node:fs/promises").then((fs) =>
    fs.writeFile(
      entry,
      `export { createBashTool } from ${src("tools/bash-tool.ts")};
export { createBashSandbox } from ${src("sandbox/bash-sandbox.ts")};
export { buildBwrapArgs } from ${src("sandbox/bwrap-args.ts")};
export { probeSandbox } from ${src("sandbox/probe-sandbox.ts")};`,
    ),
  );
  const outfile = path.join(outDir, "sandbox.mjs");
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
  });
  return {
    modules: await import(pathToFileURL(outfile).href),
    cleanup: () => rm(outDir, { recursive: true, force: true }),
  };
}

function run(file, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", resolve);
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const { modules, cleanup } = await loadModules();
const cwd = await mkdtemp("/var/tmp/gyre-bench-sandbox-");
try {
  const probe = await modules.probeSandbox();
  if (!probe.available) {
    console.log(`sandbox unavailable here: ${probe.cause}`);
    process.exit(0);
  }
  const policy = {
    cwd,
    writableRoots: [],
    protectedPaths: [],
    denyRead: [],
    network: false,
    gyreHome: path.join(cwd, ".gyre-home"),
    homeDir: cwd,
    hostEnv: { PATH: process.env.PATH },
    maxProcesses: 1024,
    maxMemoryMb: 8192,
  };
  const plan = await modules.buildBwrapArgs({ ...policy, mode: "workspace-write" });
  const sandbox = modules.createBashSandbox({ mode: "workspace-write", policy });
  const sandboxed = modules.createBashTool({ cwd, sandbox });
  const proxiedSandbox = modules.createBashSandbox({
    mode: "workspace-write",
    policy: { ...policy, allowedDomains: ["localhost"] },
  });
  const proxied = modules.createBashTool({ cwd, sandbox: proxiedSandbox });
  const host = modules.createBashTool({ cwd });
  const server = createServer((_req, res) => res.end("ok\n"));
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const get = `curl -sS --max-time 5 http://localhost:${server.address().port}/`;
  const context = () => ({ toolCallId: "bench", signal: new AbortController().signal });
  const cases = {
    bare: () => run("bash", ["-c", "true"], cwd),
    perCall: () => run(probe.bwrapPath, [...plan.args, "--", "bash", "-c", "true"], cwd),
    host: () => host.execute({ command: "true" }, context()),
    sandboxed: () => sandboxed.execute({ command: "true" }, context()),
    proxied: () => proxied.execute({ command: "true" }, context()),
    hostGet: () => host.execute({ command: get }, context()),
    proxiedGet: () => proxied.execute({ command: get }, context()),
  };
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let index = 0; index < 10; index++) for (const fn of Object.values(cases)) await fn();
  for (let index = 0; index < iterations; index++) {
    // Interleaved so machine noise hits every case alike.
    for (const [name, fn] of Object.entries(cases)) {
      const started = performance.now();
      await fn();
      times[name].push(performance.now() - started);
    }
  }
  await sandbox.dispose();
  await proxiedSandbox.dispose();
  server.close();
  const m = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
  const fmt = (value) => value.toFixed(2);
  console.log(`sandbox per call, ${iterations} calls (median ms)`);
  console.log(`bare bash -c                ${fmt(m.bare)}`);
  console.log(`bwrap per call (Codex-style) ${fmt(m.perCall)}  ${(m.perCall / m.bare).toFixed(2)}x bare`);
  console.log(`gyre bash tool, host        ${fmt(m.host)}  ${(m.host / m.bare).toFixed(2)}x bare`);
  console.log(`gyre bash tool, sandboxed   ${fmt(m.sandboxed)}  ${(m.sandboxed / m.bare).toFixed(2)}x bare`);
  console.log(
    `gyre bash tool, sandboxed + allowedDomains proxy ${fmt(m.proxied)}  ${(m.proxied / m.bare).toFixed(2)}x bare`,
  );
  console.log(`curl GET 127.0.0.1, host tool, direct ${fmt(m.hostGet)}`);
  console.log(
    `curl GET 127.0.0.1, sandbox, through the proxy ${fmt(m.proxiedGet)}  (+${fmt(m.proxiedGet - m.hostGet)} ms)`,
  );
  console.log(
    `sandbox overhead over the host tool: ${fmt(m.sandboxed - m.host)} ms; over bare bash: ${fmt(m.sandboxed - m.bare)} ms`,
  );
} finally {
  await rm(cwd, { recursive: true, force: true });
  await cleanup();
}
