/**
 * `--web-search` reaches subagents (issue 18, "Web" and "Subagents"): gyre in print mode against
 * the fake Anthropic server; the main agent delegates, and the subagent's own requests carry the
 * server-side web search tool when its agent definition allows it, and not otherwise.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

type Body = {
  system?: unknown;
  messages?: { role: string; content: unknown }[];
  tools?: { name?: string; type?: string }[];
};

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isChild = (body: Body) => JSON.stringify(body.messages?.[0]?.content ?? "").includes("SUBTASK");

/** The main agent hands SUBTASK to `agent`; the subagent answers at once; then the main agent does. */
async function delegateTo(agent: string) {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({
    respond: ({ body }: { body: Body }) => {
      if (isChild(body)) return { text: "child-answer" };
      const delegated = body.messages?.some((message) => JSON.stringify(message.content).includes("tool_result"));
      if (delegated) return { text: "parent-answer" };
      const args = { description: "look it up", prompt: "SUBTASK: find the release date", agent };
      return { toolCalls: [{ id: "toolu_task", name: "task", arguments: args }] };
    },
  });
  const env = cliEnv(home, { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url });
  const flags = [
    "-p",
    "--provider",
    "anthropic",
    "--model",
    "claude-sonnet-4-5",
    "--tools",
    "read,task",
    "--web-search",
  ];
  const result = await runCli([...flags, "go"], { cwd, env });
  const bodies = server.requests.map((request) => request.body as Body);
  const searches = (body: Body | undefined) =>
    body?.tools?.some((tool) => tool.type?.startsWith("web_search")) ?? false;
  return { result, main: bodies.filter((body) => !isChild(body)), child: bodies.filter(isChild), searches };
}

describe("web search in subagents", () => {
  it("gives the general subagent the parent's web search", async () => {
    const { result, main, child, searches } = await delegateTo("general");
    expect(result.stdout.trim()).toBe("parent-answer");
    expect(main.map(searches)).toEqual([true, true]);
    expect(child.map(searches)).toEqual([true]);
  });

  it("keeps it from the read-only explore agent, whose tools do not name web_search", async () => {
    const { result, child, searches } = await delegateTo("explore");
    expect(result.stdout.trim()).toBe("parent-answer");
    expect(child).toHaveLength(1);
    expect(child.map(searches)).toEqual([false]);
  });
});
