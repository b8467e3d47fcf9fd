/**
 * The default tool list (issue 18's proposal): with no `--tools`, the model is offered the coding
 * defaults plus the todo list and subagents; `web_fetch` only when named; a `--tools` list
 * replaces the defaults, and `--no-tools` offers nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Body = { tools?: { function?: { name?: string } }[]; messages?: { role: string; content: unknown }[] };

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The tool names of the first request, and the system prompt, for each set of flags. */
async function offered(...runs: string[][]) {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({ respond: () => ({ text: "hi" }) });
  const env = cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
  const seen: { tools: string[]; system: string }[] = [];
  for (const flags of runs) {
    const result = await runCli(["-p", "--provider", "openai", "--no-session", ...flags, "go"], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    const body = server.requests.at(-1)?.body as Body;
    seen.push({
      tools: (body.tools ?? []).map((tool) => tool.function?.name ?? ""),
      system: JSON.stringify(body.messages?.find((message) => message.role === "system")?.content ?? ""),
    });
  }
  return seen;
}

describe("the default tools", () => {
  it("offers read, write, edit, bash (with bash_output, kill_shell), todo and task when none are named, and web_fetch only when named", async () => {
    const [defaults, named, none] = await offered([], ["--tools", "read,web_fetch"], ["--no-tools"]);
    expect(defaults?.tools).toEqual(["read", "write", "edit", "bash", "bash_output", "kill_shell", "todo", "task"]);
    expect(defaults?.system).toContain("- bash_output:");
    expect(defaults?.system).toContain("- todo:");
    expect(defaults?.system).toContain("- task:");
    expect(named?.tools).toEqual(["read", "web_fetch"]);
    expect(none?.tools).toEqual([]);
  });
});
