/** RPC's `review` and `remember` commands (docs/review.md, docs/memory.md) against a real gyre child. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { closeAfterEach } from "../helpers/closing.js";
import { type FakeReply, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const closing = closeAfterEach();

async function start(respond: (request: { index: number }) => FakeReply) {
  const { cwd, home } = await createWorkspace();
  const server = closing(await startFakeModelServer({ respond }));
  const rpc = closing(
    new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o", "--trust"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    }),
  );
  return { cwd, home, server, rpc };
}

const systemOf = (body: { messages?: { role: string; content: unknown }[] } | undefined) =>
  JSON.stringify(body?.messages?.find((message) => message.role === "system")?.content ?? "");

describe("RPC review and remember", () => {
  it("review answers with the findings of the uncommitted diff; the conversation is untouched", async () => {
    const finding = { file: "a.txt", line: 1, severity: "low", title: "typo", fix: "write alpha" };
    // The reviewer tries to write with bash, then to escalate: plan mode's sandbox and gate refuse both.
    const write = { command: "echo pwned > written-by-reviewer.txt" };
    const { cwd, server, rpc } = await start(({ index }) => {
      if (index === 0) return { toolCalls: [{ name: "bash", arguments: write }] };
      if (index === 1)
        return { toolCalls: [{ name: "bash", arguments: { ...write, escalate: true, justification: "x" } }] };
      return { text: JSON.stringify({ findings: [finding] }) };
    });
    const modes: string[] = [];
    const progress: string[] = [];
    rpc.onEvent((event) => {
      if (event.type === "permission_mode_changed") modes.push(event.mode);
      if (event.type === "subagent_event") progress.push(`${event.parentToolCallId} ${event.event.type}`);
    });
    execFileSync("git", ["init", "-q"], { cwd });
    await writeFile(join(cwd, "a.txt"), "alhpa\n");
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "0"], {
      cwd,
    });
    const response = await rpc.send({ type: "review", uncommitted: true });
    expect(response.success).toBe(true);
    const data = response.data as { findings: unknown[]; files: string[]; target: string };
    expect(data.files).toEqual(["a.txt"]);
    expect(data.findings).toEqual([finding]);
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("+alhpa");
    expect(existsSync(join(cwd, "written-by-reviewer.txt"))).toBe(false);
    expect(JSON.stringify(server.requests[1]?.body.messages?.at(-1))).toContain("Read-only file system");
    expect(JSON.stringify(server.requests[2]?.body.messages?.at(-1))).toContain("Plan mode: escalation is withheld");
    expect(modes).toEqual(["plan", "default"]);
    // The reviewer's progress goes out as a subagent's events.
    expect(progress).toContain("review-1 tool_execution_start");
    expect(progress.at(-1)).toBe("review-1 agent_end");
    expect(((await rpc.send({ type: "get_state" })).data as { permissionMode: string }).permissionMode).toBe("default");
    expect(((await rpc.send({ type: "get_messages" })).data as { messages: unknown[] }).messages).toEqual([]);
    const bad = await rpc.send({ type: "review", base: "" });
    expect(bad.success).toBe(false);
  });

  it("remember appends to the project's or the user's AGENTS.md and the next prompt's context has it", async () => {
    const { cwd, home, server, rpc } = await start(() => ({ text: "ok" }));
    await writeFile(join(cwd, "AGENTS.md"), "# Project\nExisting rule.");
    const project = await rpc.send({ type: "remember", text: "use pnpm, never npm", scope: "project" });
    expect(project.data).toEqual({ path: join(cwd, "AGENTS.md"), scope: "project", created: false, inContext: true });
    expect(await readFile(join(cwd, "AGENTS.md"), "utf8")).toBe("# Project\nExisting rule.\n- use pnpm, never npm\n");
    const user = await rpc.send({ type: "remember", text: "answer in French", scope: "user" });
    expect(user.data).toMatchObject({ path: join(home, "AGENTS.md"), created: true, inContext: true });
    const idle = rpc.waitForEvent((event) => event.type === "session_idle");
    await rpc.send({ type: "prompt", message: "hi" });
    await idle;
    const system = systemOf(server.requests[0]?.body);
    expect(system).toContain("- use pnpm, never npm");
    expect(system).toContain("- answer in French");
    const wrong = await rpc.send({ type: "remember", text: "x", scope: "team" } as never);
    expect(wrong.success).toBe(false);
    expect(wrong.problems?.join(" ")).toContain("scope");
  });
});
