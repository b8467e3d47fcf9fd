/**
 * The sandbox level where headless clients read it (the JSON header line, RPC `get_state`) and
 * plan mode switched mid-session over RPC: what the model is offered, told, and keeps.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Body = { tools?: { function?: { name?: string } }[]; messages?: { role: string; content: unknown }[] };
const toolNames = (body: unknown) => ((body as Body).tools ?? []).map((tool) => tool.function?.name);
const systemText = (body: unknown) => JSON.stringify((body as Body).messages?.find((m) => m.role === "system"));

describe("gyre --mode json", () => {
  it("names the sandbox level on the header line", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({ respond: () => ({ text: "hi" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const plain = await runCli(["--mode", "json", "--provider", "openai", "go"], { cwd, env });
    expect(JSON.parse(plain.stdout.split("\n")[0] ?? "")).toMatchObject({
      type: "session",
      sandbox: "workspace-write, network off",
    });
    await mkdir(join(cwd, ".gyre"));
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ sandbox: { allowedDomains: ["a.test"] } }));
    const listed = await runCli(["--mode", "json", "--trust", "--provider", "openai", "--sandbox", "read-only", "go"], {
      cwd,
      env,
    });
    expect(JSON.parse(listed.stdout.split("\n")[0] ?? "").sandbox).toBe("read-only, network: 1 allowed domain (proxy)");
  });
});

describe("gyre --mode rpc plan mode", () => {
  it("reports the mode and sandbox in get_state, withholds write/edit while planning, and keeps the plan", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) => ({ text: index === 0 ? "PLAN-TEXT: three steps" : "applying" }),
    });
    const child = spawn(process.execPath, [gyreBin, "--mode", "rpc", "--provider", "openai"], {
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    const lines: Record<string, unknown>[] = [];
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
        lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>);
        buffer = buffer.slice(at + 1);
      }
    });
    let seq = 0;
    const next = (predicate: (line: Record<string, unknown>) => boolean, from: number) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const found = lines.slice(from).find(predicate);
          if (found) resolve(found);
          else setTimeout(check, 20);
        };
        check();
      });
    const send = async (command: Record<string, unknown>) => {
      const id = `c${++seq}`;
      const from = lines.length;
      child.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
      return next((line) => line.type === "response" && line.id === id, from);
    };
    const prompt = async (message: string) => {
      const from = lines.length;
      await send({ type: "prompt", message });
      await next((line) => line.type === "agent_end", from);
    };

    expect((await send({ type: "get_state" })).data).toMatchObject({
      permissionMode: "default",
      sandbox: "workspace-write, network off",
    });
    await send({ type: "set_permission_mode", mode: "plan" });
    expect((await send({ type: "get_state" })).data).toMatchObject({
      permissionMode: "plan",
      sandbox: "read-only, network off",
    });
    await prompt("plan it");
    await send({ type: "set_permission_mode", mode: "default" });
    await prompt("now do it");
    child.stdin.end();
    await new Promise((resolve) => child.once("close", resolve));

    const [planning, applying] = server.requests.map((request) => request.body);
    expect(toolNames(planning)).not.toContain("write");
    expect(toolNames(planning)).not.toContain("edit");
    expect(systemText(planning)).toContain("You are in plan mode");
    expect(toolNames(applying)).toEqual(expect.arrayContaining(["read", "write", "edit", "bash"]));
    expect(systemText(applying)).not.toContain("You are in plan mode");
    expect(JSON.stringify((applying as Body).messages)).toContain("PLAN-TEXT: three steps");
  });
});
