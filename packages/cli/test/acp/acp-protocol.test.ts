import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { type AcpAgentProcess, initialize, startAcpAgent } from "./acp-agent-process.js";

const running: AcpAgentProcess[] = [];
let server: FakeModelServer | undefined;
afterEach(async () => {
  for (const agent of running.splice(0)) if (agent.child.exitCode === null) await agent.kill();
  await server?.close();
  server = undefined;
});

const require = createRequire(import.meta.url);
const memoryServer = join(
  require.resolve("@modelcontextprotocol/server-memory/package.json"),
  "..",
  "dist",
  "index.js",
);

type RpcError = { code: number; message: string };
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: RpcError) => error,
  );

/** A models.json provider on a fake OpenAI-compatible server at 127.0.0.1, with two models. */
async function labAgent(respond: Parameters<typeof startFakeModelServer>[0]["respond"]) {
  const { cwd, home } = await createWorkspace();
  server = await startFakeModelServer({ respond });
  const models = [
    { id: "fake-model", contextWindow: 32768, maxTokens: 2048, input: ["text", "image"] },
    { id: "fake-mini", contextWindow: 16384, maxTokens: 2048 },
  ];
  const lab = { api: "openai-completions", baseUrl: `${server.url}/v1`, apiKeyEnv: "LAB_API_KEY", models };
  await writeFile(join(home, "models.json"), JSON.stringify({ providers: { lab } }));
  await mkdir(join(home, "prompts"));
  await writeFile(
    join(home, "prompts", "explain.md"),
    "---\ndescription: Explain a file\n---\nExplain $ARGUMENTS with care.\n",
  );
  const editor = startAcpAgent({
    cwd,
    home,
    args: ["--provider", "lab", "--model", "fake-model"],
    env: { LAB_API_KEY: "x" },
  });
  running.push(editor);
  await initialize(editor.agent);
  return { editor, agent: editor.agent, cwd, home };
}

const textOfBody = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? "").join("")
      : "";

describe("gyre acp: protocol", () => {
  it("refuses a prompt or a session flag with exit 2 and one sentence", async () => {
    const { cwd, home } = await createWorkspace();
    for (const args of [["explain", "this"], ["-c"], ["--session", "abc"], ["--mode", "json"]]) {
      const result = await runCli(["acp", ...args], { cwd, env: cliEnv(home) });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(result.stderr).toMatch(/^gyre: gyre acp (takes no prompt|does not take)\b.*\.\n$/);
    }
  });

  it("answers bad input with JSON-RPC errors and keeps serving", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "s.json"), JSON.stringify([{ content: [{ type: "text", text: "still here" }] }]));
    const editor = startAcpAgent({ cwd, home, args: ["--provider", "faux", "--faux-script", join(home, "s.json")] });
    running.push(editor);
    await initialize(editor.agent);
    editor.child.stdin.write("this is not json\n");
    const unknown = await errorOf(editor.agent.request("session/teleport", {}));
    expect(unknown?.code).toBe(-32601);
    const badParams = await errorOf(editor.agent.request("session/new", { cwd: 42 } as never));
    expect(badParams?.code).toBe(-32602);
    const relative = await errorOf(editor.agent.request("session/new", { cwd: "project", mcpServers: [] }));
    expect(relative).toMatchObject({ code: -32602, message: expect.stringContaining("cwd must be an absolute path") });
    const noSession = await errorOf(editor.agent.request("session/prompt", { sessionId: "nope", prompt: [] }));
    expect(noSession?.code).toBe(-32002);
    const missing = await errorOf(editor.agent.request("session/load", { sessionId: "0000dead", cwd, mcpServers: [] }));
    expect(missing).toMatchObject({
      code: -32002,
      message: expect.stringContaining('No session id starts with "0000dead"'),
    });
    // An editor's MCP server that cannot start: the session opens, and the editor is told why.
    const { sessionId } = await editor.agent.request("session/new", {
      cwd,
      mcpServers: [{ name: "broken", command: join(cwd, "no-such-server"), args: [], env: [] }],
    });
    const told = await editor.waitFor((update) => update.sessionUpdate === "notice");
    expect(told).toMatchObject({ severity: "warning", title: expect.stringContaining("broken") });
    const badMode = await errorOf(editor.agent.request("session/set_mode", { sessionId, modeId: "yolo" }));
    expect(badMode).toMatchObject({ code: -32602, message: expect.stringContaining('unknown mode "yolo"') });
    const badModel = await errorOf(
      editor.agent.request("session/set_config_option", { sessionId, configId: "model", value: "nobody/none" }),
    );
    expect(badModel).toMatchObject({ code: -32602, message: expect.stringContaining('unknown model "nobody/none"') });
    const empty = await errorOf(editor.agent.request("session/prompt", { sessionId, prompt: [] }));
    expect(empty).toMatchObject({ code: -32602, message: expect.stringContaining("the prompt has no content") });
    // The agent still serves: a prompt runs to its end.
    const answered = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(answered.stopReason).toBe("end_turn");
    const parseError = editor
      .stdoutLines()
      .map((line) => JSON.parse(line) as { error?: { code: number } })
      .find((message) => message.error?.code === -32700);
    expect(parseError).toBeDefined();
    expect(await editor.close()).toBe(0);
  }, 60_000);

  it("lists slash commands, expands a template, takes images and resources, and switches model and thinking", async () => {
    const { editor, agent, cwd, home } = await labAgent(({ index }) => ({ text: `answer ${index}` }));
    const { sessionId, configOptions } = await agent.request("session/new", { cwd, mcpServers: [] });
    const model = configOptions?.find((option) => option.id === "model");
    expect(model).toMatchObject({ currentValue: "lab/fake-model" });
    const values =
      model?.type === "select" ? model.options.map((option) => ("value" in option ? option.value : "")) : [];
    expect(values).toEqual(expect.arrayContaining(["lab/fake-model", "lab/fake-mini"]));
    const commands = await editorWait(editor, "available_commands_update");
    expect(commands.availableCommands.map((command) => command.name)).toEqual(
      expect.arrayContaining(["compact", "review", "remember", "explain"]),
    );
    expect(commands.availableCommands.find((command) => command.name === "explain")?.description).toBe(
      "Explain a file",
    );

    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/explain src/app.ts" }] });
    const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
    await agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "image", data: png, mimeType: "image/png" },
        { type: "resource_link", name: "notes.md", uri: `file://${cwd}/notes.md` },
        { type: "resource", resource: { uri: `file://${cwd}/open.ts`, text: "const unsaved = 1;" } },
      ],
    });
    const switched = await agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "lab/fake-mini",
    });
    expect(switched.configOptions.find((option) => option.id === "model")).toMatchObject({
      currentValue: "lab/fake-mini",
    });
    const thinking = await agent.request("session/set_config_option", {
      sessionId,
      configId: "thinking",
      value: "high",
    });
    expect(thinking.configOptions.find((option) => option.id === "thinking")).toMatchObject({ currentValue: "high" });
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "third" }] });

    const requests = server?.requests ?? [];
    expect(requests.map((request) => request.body.model)).toEqual(["fake-model", "fake-model", "fake-mini"]);
    const lastUser = (index: number) =>
      [...(requests[index]?.body.messages ?? [])].reverse().find((message) => message.role === "user");
    expect(textOfBody(lastUser(0)?.content)).toContain("Explain src/app.ts with care.");
    const second = lastUser(1)?.content as { type: string; image_url?: { url: string } }[];
    expect(textOfBody(second)).toContain(`[@notes.md](file://${cwd}/notes.md)`);
    expect(textOfBody(second)).toContain(`<context uri="file://${cwd}/open.ts">\nconst unsaved = 1;\n</context>`);
    expect(second.find((part) => part.type === "image_url")?.image_url?.url).toBe(`data:image/png;base64,${png}`);
    expect(editor.updates(sessionId, "config_option_update").length).toBeGreaterThanOrEqual(2);
    expect(editor.updates(sessionId, "usage_update").at(-1)).toMatchObject({ size: 16384 });

    // Killed and started again with the same flags: the loaded session keeps the model it switched to.
    await editor.kill();
    const again = startAcpAgent({
      cwd,
      home,
      args: ["--provider", "lab", "--model", "fake-model"],
      env: { LAB_API_KEY: "x" },
    });
    running.push(again);
    await initialize(again.agent);
    const loaded = await again.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(loaded.configOptions?.find((option) => option.id === "model")).toMatchObject({
      currentValue: "lab/fake-mini",
    });
    await again.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fourth" }] });
    expect(server?.requests.at(-1)?.body.model).toBe("fake-mini");
  }, 60_000);

  it("/review answers with the reviewer's findings and /remember puts a line in the next prompt's context", async () => {
    const finding = { file: "calc.js", line: 1, severity: "high", title: "subtracts instead of adding", fix: "a + b" };
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { text: JSON.stringify({ summary: "one bug", findings: [finding] }) } : { text: "ok" },
    });
    execFileSync("git", ["init", "-q"], { cwd });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "0"], {
      cwd,
    });
    await writeFile(join(cwd, "calc.js"), "export const add = (a, b) => a - b;\n");
    const editor = startAcpAgent({
      cwd,
      home,
      args: ["--provider", "openai", "--model", "gpt-4o", "--trust"],
      env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" },
    });
    running.push(editor);
    await initialize(editor.agent);
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const review = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/review" }],
    });
    expect(review.stopReason).toBe("end_turn");
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("+export const add = (a, b) => a - b;");
    const said = () =>
      editor
        .updates(sessionId, "agent_message_chunk")
        .map((update) => (update.content.type === "text" ? update.content.text : ""))
        .join("");
    expect(said()).toContain("calc.js:1 high: subtracts instead of adding");
    const refused = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/review --base main --uncommitted" }],
    });
    expect(refused.stopReason).toBe("end_turn");
    expect(said()).toContain("/review takes --base <ref> or --uncommitted, not both.");

    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/remember use pnpm, never npm" }],
    });
    expect(await readFile(join(cwd, "AGENTS.md"), "utf8")).toContain("- use pnpm, never npm");
    expect(said()).toContain(`Remembered in ${join(cwd, "AGENTS.md")}.`);
    await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const system = server.requests.at(-1)?.body.messages?.find((message) => message.role === "system");
    expect(JSON.stringify(system?.content)).toContain("- use pnpm, never npm");
    // Neither command joined the conversation: the model saw only "hi".
    const users = server.requests.at(-1)?.body.messages?.filter((message) => message.role === "user") ?? [];
    expect(users.map((message) => textOfBody(message.content))).toEqual(["hi"]);
  }, 60_000);

  it("starts an MCP server the editor passes, next to the user's, and lets the model call its tools", async () => {
    const { editor, agent, cwd, home } = await labAgent(({ index }) =>
      index === 0
        ? {
            toolCalls: [
              {
                name: "mcp__memory__create_entities",
                arguments: { entities: [{ name: "gyre", entityType: "project", observations: ["speaks ACP"] }] },
              },
            ],
          }
        : { text: "Remembered." },
    );
    const memoryFile = join(home, "memory.jsonl");
    // The user's own server is kept next to the editor's.
    const mine = {
      command: process.execPath,
      args: [memoryServer],
      env: { MEMORY_FILE_PATH: join(home, "mine.jsonl") },
    };
    await writeFile(join(home, "mcp.json"), JSON.stringify({ mcpServers: { mine } }));
    const { sessionId } = await agent.request("session/new", {
      cwd,
      mcpServers: [
        {
          name: "memory",
          command: process.execPath,
          args: [memoryServer],
          env: [{ name: "MEMORY_FILE_PATH", value: memoryFile }],
        },
      ],
    });
    const done = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "remember gyre" }],
    });
    expect(done.stopReason).toBe("end_turn");
    const call = editor.updates(sessionId, "tool_call")[0];
    expect(call).toMatchObject({ title: "memory: create_entities", kind: "other" });
    expect(editor.updates(sessionId, "tool_call_update").at(-1)).toMatchObject({
      toolCallId: call?.toolCallId,
      status: "completed",
    });
    expect(await readFile(memoryFile, "utf8")).toContain("speaks ACP");
    const tools = (server?.requests[0]?.body.tools ?? []) as { function?: { name?: string } }[];
    expect(tools.map((tool) => tool.function?.name)).toEqual(
      expect.arrayContaining(["mcp__memory__create_entities", "mcp__mine__create_entities"]),
    );
  }, 60_000);
});

async function editorWait(editor: AcpAgentProcess, kind: "available_commands_update") {
  const update = await editor.waitFor((candidate) => candidate.sessionUpdate === kind);
  return update as Extract<typeof update, { sessionUpdate: "available_commands_update" }>;
}

describe("gyre acp: the editor's file system", () => {
  it("reads unsaved buffers through fs/read_text_file and writes edits through fs/write_text_file", async () => {
    const { cwd, home } = await createWorkspace();
    const file = join(cwd, "open.ts");
    await writeFile(file, "const saved = 1;\n");
    await writeFile(join(cwd, "closed.txt"), "on disk\n");
    await writeFile(join(home, "secret.txt"), "outside the workspace\n");
    await writeFile(
      join(home, "s.json"),
      JSON.stringify([
        { content: [{ type: "toolCall", name: "read", arguments: { path: "open.ts" } }] },
        {
          content: [
            {
              type: "toolCall",
              name: "edit",
              arguments: { path: "open.ts", edits: [{ oldText: "unsaved = 2", newText: "unsaved = 3" }] },
            },
          ],
        },
        { content: [{ type: "toolCall", name: "read", arguments: { path: "closed.txt" } }] },
        { content: [{ type: "toolCall", name: "read", arguments: { path: join(home, "secret.txt") } }] },
        { content: [{ type: "text", text: "Edited the buffer." }] },
      ]),
    );
    const buffers = new Map([[file, "const unsaved = 2;\n"]]);
    const editor = startAcpAgent({
      cwd,
      home,
      args: ["--provider", "faux", "--faux-script", join(home, "s.json")],
      buffers,
    });
    running.push(editor);
    await initialize(editor.agent, { fs: true });
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const done = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "bump it" }],
    });
    expect(done.stopReason).toBe("end_turn");
    const results = editor
      .updates(sessionId, "tool_call_update")
      .filter((update) => update.status === "completed")
      .map((update) => update.rawOutput as { text: string });
    // The model read the buffer, not the file on disk.
    expect(results[0]?.text).toContain("const unsaved = 2;");
    expect(results[0]?.text).not.toContain("saved = 1");
    expect(editor.writes).toEqual([{ path: file, content: "const unsaved = 3;\n" }]);
    expect(await readFile(file, "utf8")).toBe("const unsaved = 3;\n");
    expect(results[2]?.text).toContain("on disk");
    expect(editor.reads).toEqual(expect.arrayContaining([file, join(cwd, "closed.txt")]));
    // The path policy still decides first: a file outside the workspace is refused, the editor never asked.
    const outside = editor.updates(sessionId, "tool_call_update").at(-1);
    expect(outside?.status).toBe("failed");
    expect((outside?.rawOutput as { text?: string } | undefined)?.text).toMatch(
      /^Refused by the workspace policy: .* is outside the workspace/,
    );
    expect(editor.reads).not.toContain(join(home, "secret.txt"));
    expect(await editor.close()).toBe(0);
  }, 60_000);
});

describe("gyre acp: stop reasons", () => {
  it("answers max_tokens for a cut-off answer and max_turn_requests at the turn budget", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "s.json"),
      JSON.stringify([
        { content: [{ type: "text", text: "This answer is cut" }], stopReason: "length" },
        { content: [{ type: "toolCall", name: "ls", arguments: {} }] },
        { content: [{ type: "toolCall", name: "ls", arguments: {} }] },
        { content: [{ type: "text", text: "never reached" }] },
      ]),
    );
    const editor = startAcpAgent({
      cwd,
      home,
      args: ["--provider", "faux", "--faux-script", join(home, "s.json"), "--max-turns", "2"],
    });
    running.push(editor);
    await initialize(editor.agent);
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    const cut = await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "long" }] });
    expect(cut.stopReason).toBe("max_tokens");
    const budget = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "loop" }],
    });
    expect(budget.stopReason).toBe("max_turn_requests");
    expect(await editor.close()).toBe(0);
  }, 60_000);
});

describe("gyre acp: plan and shutdown", () => {
  it("sends the todo list as a plan, and on SIGTERM closes its sessions so the next process loads them", async () => {
    const { cwd, home } = await createWorkspace();
    const todos = [
      { content: "Read the code", status: "completed" },
      { content: "Write the fix", status: "in_progress" },
      { content: "Run the tests", status: "pending" },
    ];
    await writeFile(
      join(home, "s.json"),
      JSON.stringify([
        { content: [{ type: "toolCall", name: "todo", arguments: { todos } }] },
        { content: [{ type: "text", text: "Planned." }] },
      ]),
    );
    const args = ["--provider", "faux", "--faux-script", join(home, "s.json")];
    const editor = startAcpAgent({ cwd, home, args });
    running.push(editor);
    await initialize(editor.agent);
    const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
    await editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan it" }] });
    expect(editor.updates(sessionId, "plan").at(-1)?.entries).toEqual(
      todos.map((todo) => ({ ...todo, priority: "medium" })),
    );
    expect(editor.updates(sessionId, "tool_call")[0]).toMatchObject({ kind: "think", title: "Update the todo list" });
    const exited = new Promise<number | null>((resolve) => editor.child.on("close", (code) => resolve(code)));
    editor.child.kill("SIGTERM");
    expect(await exited).toBe(143);
    const again = startAcpAgent({ cwd, home, args });
    running.push(again);
    await initialize(again.agent);
    await again.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
    expect(again.updates(sessionId, "agent_message_chunk").map((chunk) => chunk.content)).toEqual([
      { type: "text", text: "Planned." },
    ]);
    expect(await again.close()).toBe(0);
  }, 60_000);
});
