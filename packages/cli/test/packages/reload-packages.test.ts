/**
 * `/reload` (RPC's `reload`, the same code) loads what start-up loads from installed packages,
 * with extensions off too: `--no-extensions` leaves out a package's extension, never its
 * templates or skills (found by a newcomer run: `prompt templates: -explainit` after a reload).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { closeAfterEach } from "../helpers/closing.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

const closing = closeAfterEach();

/** npm kept off the network: only local sources resolve. */
const env = (home: string, extra: Record<string, string> = {}) =>
  cliEnv(home, { npm_config_offline: "true", npm_config_update_notifier: "false", ...extra });

/** A package in the shape of the newcomer's kit: an extension, a prompts folder, a skill. */
async function writeKit(dir: string): Promise<void> {
  await mkdir(join(dir, "extensions"), { recursive: true });
  await mkdir(join(dir, "prompts"), { recursive: true });
  await mkdir(join(dir, "skills", "greeter"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "kit", version: "1.0.0", type: "module" }));
  await writeFile(
    join(dir, "extensions", "guard.mjs"),
    'export default (api) => api.addSystemPrompt("KIT-EXTENSION-LOADED");\n',
  );
  await writeFile(
    join(dir, "prompts", "explainit.md"),
    "---\ndescription: Explain a file\n---\nexplain $1 in plain words.\n",
  );
  await writeFile(
    join(dir, "skills", "greeter", "SKILL.md"),
    "---\nname: greeter\ndescription: Greets people.\n---\nSay hello warmly.\n",
  );
}

async function install(cwd: string, home: string, source: string): Promise<void> {
  const installed = await runCli(["install", source], { cwd, env: env(home) });
  expect(installed.stderr).toBe("");
  expect(installed.stdout).toContain("Installed kit 1.0.0");
}

function startRpc(cwd: string, home: string, server: FakeModelServer): RpcClient {
  return closing(
    new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o", "--no-session", "--no-extensions"],
      cwd,
      env: env(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    }),
  );
}

async function reload(rpc: RpcClient): Promise<string[]> {
  const response = await rpc.send({ type: "reload" });
  expect(response.success).toBe(true);
  return (response.data as { changes: string[] }).changes;
}

/** Sends `message` and resolves once the run is over and written. */
async function prompt(rpc: RpcClient, message: string): Promise<void> {
  const idle = rpc.waitForEvent((event) => event.type === "session_idle");
  expect((await rpc.send({ type: "prompt", message })).success).toBe(true);
  await idle;
}

describe("/reload with installed packages under --no-extensions", () => {
  it("keeps the package's templates and skills it loaded at start, and still leaves its extension out", async () => {
    const { cwd, home } = await createWorkspace();
    await writeKit(join(home, "kit"));
    await install(cwd, home, join(home, "kit"));
    const server = closing(await startFakeModelServer({ respond: () => ({ text: "ok" }) }));
    const rpc = startRpc(cwd, home, server);

    await prompt(rpc, "/explainit main.ts");
    expect(await reload(rpc)).toEqual([]);
    await prompt(rpc, "/explainit util.ts");

    const [before, after] = server.requests.map((request) => JSON.stringify(request.body));
    expect(before).toContain("explain main.ts in plain words.");
    expect(after).toContain("explain util.ts in plain words.");
    expect(after).toContain("greeter");
    expect(after).not.toContain("KIT-EXTENSION-LOADED");
  }, 60_000);

  it("loads the templates and skills of a package installed since start, as a restart would", async () => {
    const { cwd, home } = await createWorkspace();
    await writeKit(join(home, "kit"));
    const server = closing(await startFakeModelServer({ respond: () => ({ text: "ok" }) }));
    const rpc = startRpc(cwd, home, server);
    await install(cwd, home, join(home, "kit"));

    const changes = await reload(rpc);
    expect(changes).toContain("skills: +greeter");
    expect(changes).toContain("prompt templates: +explainit");
    await prompt(rpc, "/explainit main.ts");
    const sent = JSON.stringify(server.requests[0]?.body);
    expect(sent).toContain("explain main.ts in plain words.");
    expect(sent).not.toContain("KIT-EXTENSION-LOADED");
  }, 60_000);
});
