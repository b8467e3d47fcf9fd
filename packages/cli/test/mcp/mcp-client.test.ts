import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnyAgentTool } from "@gyre/agent";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { elicitWithUserInterface } from "../../src/core/mcp/elicit-with-user-interface.js";
import { createMcpManager, type McpManager } from "../../src/core/mcp/mcp-manager.js";
import { loadMcpSdk } from "../../src/core/mcp/open-transport.js";
import type { McpServerEntry } from "../../src/core/mcp/types.js";
import { createHeadlessUserInterface, type UserInterface } from "../../src/core/user-interface.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const filesystem = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const memory = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const trouble = fileURLToPath(new URL("./fixtures/trouble-server.mjs", import.meta.url));

// The first import of the SDK under vitest takes seconds on a busy machine; timing tests must not pay it.
beforeAll(async () => {
  await loadMcpSdk();
  await import("@modelcontextprotocol/sdk/client/stdio.js");
});

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

function stdio(name: string, args: string[], extra: Partial<McpServerEntry["config"]> = {}): McpServerEntry {
  return {
    name,
    scope: "user",
    file: "test",
    config: { type: "stdio", command: process.execPath, args, env: {}, ...extra } as McpServerEntry["config"],
  };
}

function start(
  servers: McpServerEntry[],
  options: {
    cwd?: string;
    notices?: string[];
    restartDelaysMs?: number[];
    startupTimeoutMs?: number;
    ui?: UserInterface;
  } = {},
) {
  const { ui } = options;
  const manager = createMcpManager({
    servers,
    cwd: options.cwd ?? tmpdir(),
    env: process.env,
    clientVersion: "test",
    onNotice: (message) => options.notices?.push(message),
    ...(options.restartDelaysMs ? { restartDelaysMs: options.restartDelaysMs } : {}),
    ...(options.startupTimeoutMs ? { startupTimeoutMs: options.startupTimeoutMs } : {}),
    ...(ui ? { elicit: (server, request, signal) => elicitWithUserInterface(ui, server, request, signal) } : {}),
  });
  managers.push(manager);
  return manager;
}

function tool(manager: McpManager, name: string): AnyAgentTool {
  const found = manager.tools().find((candidate) => candidate.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} among ${manager
        .tools()
        .map((candidate) => candidate.name)
        .join(", ")}`,
    );
  return found;
}

const context = (signal = new AbortController().signal, updates: unknown[] = []) => ({
  toolCallId: "call-1",
  signal,
  onUpdate: (update: unknown) => updates.push(update),
});

function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (check()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

describe("MCP client against the reference servers", () => {
  it("lists server-everything's tools as mcp__everything__* and calls echo, sum, image and structured content", async () => {
    const manager = start([stdio("everything", [everything, "stdio"])]);
    expect((await manager.waitForStartup(15_000)).leftOut).toEqual([]);
    const names = manager.tools().map((candidate) => candidate.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__get-sum");
    const echo = await tool(manager, "mcp__everything__echo").execute({ message: "hello mcp" }, context());
    expect(echo.content).toEqual([{ type: "text", text: "Echo: hello mcp" }]);
    const sum = await tool(manager, "mcp__everything__get-sum").execute({ a: 2, b: 3 }, context());
    expect(JSON.stringify(sum.content)).toContain("5");
    const image = await tool(manager, "mcp__everything__get-tiny-image").execute({}, context());
    expect(image.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(true);
    const structured = await tool(manager, "mcp__everything__get-structured-content").execute(
      { location: "New York" },
      context(),
    );
    expect(structured.details).toMatchObject({ server: "everything", structuredContent: expect.any(Object) });
    const embedded = await tool(manager, "mcp__everything__get-resource-reference").execute(
      { resourceType: "Text", resourceId: 1 },
      context(),
    );
    expect(JSON.stringify(embedded.content)).toMatch(/Resource .*resource/);
    expect(manager.statuses()[0]).toMatchObject({ name: "everything", state: "connected", transport: "stdio" });
  });

  it("lists server-everything's resources and reads one through mcp_list_resources and mcp_read_resource", async () => {
    const manager = start([stdio("everything", [everything, "stdio"])]);
    await manager.waitForStartup(15_000);
    const listed = await tool(manager, "mcp_list_resources").execute({}, context());
    const text = listed.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const uri = /demo:\/\/resource\/static\/document\/\S+/.exec(text)?.[0];
    expect(uri).toBeDefined();
    expect(text).toMatch(/template /);
    const read = await tool(manager, "mcp_read_resource").execute({ server: "everything", uri }, context());
    expect(JSON.stringify(read.content)).toContain(`Resource ${uri}`);
    await expect(tool(manager, "mcp_read_resource").execute({ server: "nope", uri }, context())).rejects.toThrow(
      /No connected MCP server "nope" with resources; choose from everything/,
    );
  });

  it("passes progress notifications to onUpdate", async () => {
    const manager = start([stdio("everything", [everything, "stdio"])]);
    await manager.waitForStartup(15_000);
    const updates: { content: { text: string }[] }[] = [];
    const result = await tool(manager, "mcp__everything__trigger-long-running-operation").execute(
      { duration: 0.9, steps: 3 },
      context(undefined, updates),
    );
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
    // The last notification can reach the SDK in the same read as the result, which then drops it
    // (the request's progress handler is removed before the notification's microtask runs).
    const texts = updates.map((update) => update.content[0]?.text);
    expect(texts.slice(0, 2)).toEqual(["progress 1/3", "progress 2/3"]);
    expect(["progress 1/3,progress 2/3", "progress 1/3,progress 2/3,progress 3/3"]).toContain(texts.join(","));
  });

  it("offers the workspace as the only root", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "gyre-mcp-roots-"));
    const manager = start([stdio("everything", [everything, "stdio"])], { cwd });
    await manager.waitForStartup(15_000);
    // The roots tool is registered after initialize and announced with tools/list_changed.
    await waitFor(
      () => manager.tools().some((candidate) => candidate.name === "mcp__everything__get-roots-list"),
      "get-roots-list",
    );
    const roots = await tool(manager, "mcp__everything__get-roots-list").execute({}, context());
    expect(JSON.stringify(roots.content)).toContain(`file://${cwd}`);
  });

  it("reads and writes through server-filesystem inside the allowed folder only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-mcp-fs-"));
    await writeFile(join(dir, "note.txt"), "from disk\n");
    const manager = start([stdio("fs", [filesystem, dir])]);
    await manager.waitForStartup(15_000);
    const read = await tool(manager, "mcp__fs__read_text_file").execute({ path: join(dir, "note.txt") }, context());
    expect(read.content).toEqual([{ type: "text", text: "from disk\n" }]);
    await expect(tool(manager, "mcp__fs__read_text_file").execute({ path: "/etc/passwd" }, context())).rejects.toThrow(
      /reported an error:\n.*(denied|outside)/is,
    );
  });

  it("keeps a knowledge graph in server-memory across calls", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-mcp-memory-"));
    const manager = start([stdio("memory", [memory], { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } })]);
    await manager.waitForStartup(15_000);
    await tool(manager, "mcp__memory__create_entities").execute(
      { entities: [{ name: "gyre", entityType: "project", observations: ["speaks MCP"] }] },
      context(),
    );
    const graph = await tool(manager, "mcp__memory__read_graph").execute({}, context());
    expect(JSON.stringify(graph.content)).toContain("speaks MCP");
  });
});

describe("tool_search", () => {
  it("offers tool_search instead of 100 schemas over the threshold, and loads what a search finds", async () => {
    const manager = start([stdio("many", [trouble, "--many", "100"])]);
    await manager.waitForStartup(10_000);
    expect(manager.tools().map((candidate) => candidate.name)).toEqual(["tool_search"]);
    let changes = 0;
    manager.onToolsChanged(() => changes++);
    const found = await tool(manager, "tool_search").execute({ query: "weather records", limit: 3 }, context());
    expect(JSON.stringify(found.content)).toMatch(
      /Loaded 3 tool\(s\).*mcp__many__weather_action_6\(id, filter, limit, cursor, fields\)/,
    );
    expect(changes).toBe(1);
    const names = manager.tools().map((candidate) => candidate.name);
    expect(names).toHaveLength(4);
    expect(names.slice(1).every((name) => name.startsWith("mcp__many__weather_action_"))).toBe(true);
    const called = await tool(manager, names[1] ?? "").execute({ id: "w1" }, context());
    expect(JSON.stringify(called.content)).toContain('{\\"id\\":\\"w1\\"}');
  });

  it("sends every schema when they fit under the threshold", async () => {
    const manager = start([stdio("few", [trouble, "--many", "3"])]);
    await manager.waitForStartup(10_000);
    expect(manager.tools().map((candidate) => candidate.name)).not.toContain("tool_search");
    expect(manager.tools().length).toBeGreaterThan(3);
  });
});

describe("MCP elicitation", () => {
  /** A person at the keyboard, scripted: says yes, then answers each question in turn. */
  function scriptedUser(answers: (string | undefined)[], asked: string[]): UserInterface {
    const next = async (request: { title: string }) => {
      asked.push(request.title);
      return answers.shift();
    };
    return { interactive: true, confirm: async () => true, select: next, input: next, notify: () => {} };
  }

  it("asks the user for each field of server-everything's form and returns the answers", async () => {
    const asked: string[] = [];
    // name, check, firstLine (default), email, homepage, birthdate, integer, number, 4 selects, legacy enum
    const answers = [
      "Ada",
      "yes",
      "",
      "ada@example.org",
      "",
      "",
      "7",
      "",
      "Rachel",
      "Piano, Drums",
      "hero-2",
      "fish-3",
      "pet-2",
    ];
    const manager = start([stdio("everything", [everything, "stdio"])], { ui: scriptedUser(answers, asked) });
    await manager.waitForStartup(15_000);
    await waitFor(
      () => manager.tools().some((candidate) => candidate.name === "mcp__everything__trigger-elicitation-request"),
      "the elicitation tool",
    );
    const result = await tool(manager, "mcp__everything__trigger-elicitation-request").execute({}, context());
    const text = JSON.stringify(result.content);
    expect(text).toContain("User provided the requested information");
    expect(text).toContain("Name: Ada");
    expect(text).toContain("Favorite Integer: 7");
    expect(text).toContain("It was a dark and stormy night.");
    expect(asked[0]).toMatch(/^String \(Your full, legal name\)$/);
  });

  it("declines in a headless run, where nobody can answer", async () => {
    const manager = start([stdio("everything", [everything, "stdio"])], { ui: createHeadlessUserInterface() });
    await manager.waitForStartup(15_000);
    await waitFor(
      () => manager.tools().some((candidate) => candidate.name === "mcp__everything__trigger-elicitation-request"),
      "the elicitation tool",
    );
    const result = await tool(manager, "mcp__everything__trigger-elicitation-request").execute({}, context());
    expect(JSON.stringify(result.content)).toContain("User declined to provide the requested information");
  });
});

describe("MCP client against misbehaving servers", () => {
  it("reports a server that never answers initialize once the bounded wait is over, and leaves it out", async () => {
    const tag = `stuck-${process.pid}-${Date.now()}`;
    const manager = start([stdio("stuck", [trouble, "--no-initialize", tag]), stdio("trouble", [trouble])], {
      startupTimeoutMs: 60_000,
    });
    // The healthy server connects first (however loaded the machine is); the wait is then bounded for the stuck one.
    await manager.connection("trouble")?.ready;
    const started = Date.now();
    const wait = await manager.waitForStartup(1000);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(wait.leftOut).toEqual(["stuck"]);
    expect(wait.messages[0]).toMatch(/"stuck" did not finish connecting within 1000 ms/);
    expect(manager.tools().length).toBeGreaterThan(0);
    expect(manager.tools().every((candidate) => candidate.name.startsWith("mcp__trouble__"))).toBe(true);
    expect(manager.statuses()[0]?.state).toBe("closed");
    // Left out means gone: the stuck process, which ignores the end of its stdin, was killed.
    const { execFileSync } = await import("node:child_process");
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(tag);
  });

  it("fails a server whose initialize times out on its own startup timeout, with the reason", async () => {
    const notices: string[] = [];
    const manager = start([stdio("stuck", [trouble, "--no-initialize"], { startupTimeoutMs: 300 })], { notices });
    await manager.waitForStartup(5000);
    expect(manager.statuses()[0]).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/no answer to initialize within 300 ms/),
    });
    expect(notices.join("\n")).toMatch(/"stuck" failed to connect/);
  });

  it("turns a crash mid-call into an error result, restarts the server with a notice, and calls work again", async () => {
    const notices: string[] = [];
    const manager = start([stdio("trouble", [trouble])], { notices, restartDelaysMs: [50, 50] });
    await manager.waitForStartup(10_000);
    const crash = tool(manager, "mcp__trouble__crash");
    await expect(crash.execute({}, context())).rejects.toThrow(/closed the connection during crash/);
    await waitFor(() => manager.statuses()[0]?.state === "connected", "the restart");
    expect(notices.join("\n")).toMatch(/"trouble" exited \(last stderr line: crashing now\); restarting it in 50 ms/);
    expect(manager.statuses()[0]?.restarts).toBe(1);
    await expect(tool(manager, "mcp__trouble__fail").execute({}, context())).rejects.toThrow(
      /reported an error:\nthe widget is broken/,
    );
  });

  it("gives up after the last restart and says so", async () => {
    const notices: string[] = [];
    const manager = start([stdio("trouble", [trouble])], { notices, restartDelaysMs: [20] });
    await manager.waitForStartup(10_000);
    await expect(tool(manager, "mcp__trouble__crash").execute({}, context())).rejects.toThrow();
    await waitFor(() => manager.statuses()[0]?.state === "connected", "the restart");
    await expect(tool(manager, "mcp__trouble__crash").execute({}, context())).rejects.toThrow();
    await waitFor(() => manager.statuses()[0]?.state === "failed", "giving up");
    expect(notices.at(-1)).toMatch(/will not be restarted/);
    expect(manager.tools()).toEqual([]);
  });

  it("keeps a flood of stderr bounded and its last lines visible", async () => {
    const manager = start([stdio("trouble", [trouble])]);
    await manager.waitForStartup(10_000);
    await tool(manager, "mcp__trouble__flood_stderr").execute({ megabytes: 20 }, context());
    await waitFor(() => manager.statuses()[0]?.stderrTail.at(-1) === "flood done", "the last stderr line");
    const tail = manager.statuses()[0]?.stderrTail ?? [];
    expect(tail.length).toBeLessThanOrEqual(20);
    expect(tail.join("\n").length).toBeLessThan(64 * 1024);
  }, 60_000);

  it("caps a 10 MB result like built-in tool output, with a notice", async () => {
    const manager = start([stdio("trouble", [trouble])]);
    await manager.waitForStartup(10_000);
    const result = await tool(manager, "mcp__trouble__big_result").execute({}, context());
    const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
    expect(Buffer.byteLength(text)).toBeLessThan(52 * 1024);
    expect(text).toMatch(/\[Output truncated: the tool returned 10\.\d MB in 100000 lines/);
    expect(result.details).toMatchObject({ truncatedFromBytes: expect.any(Number) });
  });

  it("sees a tool added mid-session after tools/list_changed", async () => {
    const manager = start([stdio("trouble", [trouble])]);
    await manager.waitForStartup(10_000);
    let changes = 0;
    manager.onToolsChanged(() => changes++);
    expect(manager.tools().map((candidate) => candidate.name)).not.toContain("mcp__trouble__late_tool");
    await tool(manager, "mcp__trouble__add_tool").execute({}, context());
    await waitFor(() => manager.tools().some((candidate) => candidate.name === "mcp__trouble__late_tool"), "late_tool");
    expect(changes).toBeGreaterThan(0);
    const late = await tool(manager, "mcp__trouble__late_tool").execute({}, context());
    expect(late.content).toEqual([{ type: "text", text: "late tool ran" }]);
  });

  it("cancels a running call on abort and tells the server", async () => {
    const manager = start([stdio("trouble", [trouble])]);
    await manager.waitForStartup(10_000);
    const controller = new AbortController();
    const call = tool(manager, "mcp__trouble__hang").execute({}, context(controller.signal));
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toThrow(/was cancelled \(the server was told to stop\)/);
    await waitFor(() => manager.statuses()[0]?.stderrTail.includes("hang cancelled") === true, "the server's cancel");
  });

  it("turns a per-call timeout into an error result", async () => {
    const manager = start([stdio("trouble", [trouble], { toolTimeoutMs: 200 })]);
    await manager.waitForStartup(10_000);
    await expect(tool(manager, "mcp__trouble__hang").execute({}, context())).rejects.toThrow(
      /did not answer hang in time/,
    );
  });

  it("ends a server's stdin on close and sends SIGTERM soon after when it keeps running", async () => {
    const notes = join(await mkdtemp(join(tmpdir(), "gyre-mcp-linger-")), "notes");
    const manager = start([stdio("trouble", [trouble, "--linger", notes])]);
    await manager.waitForStartup(15_000);
    expect(manager.statuses()[0]?.state).toBe("connected");
    await manager.close();
    const events = (await readFile(notes, "utf8"))
      .trim()
      .split("\n")
      .map((line) => line.split(" "));
    expect(events.map(([what]) => what)).toEqual(["stdin-ended", "sigterm"]);
    // The SDK alone waits 2 s before SIGTERM; gyre gives a server 0.5 s.
    expect(Number(events[1]?.[1]) - Number(events[0]?.[1])).toBeLessThan(1_900);
  });

  it("reports a command that does not exist", async () => {
    const manager = start([
      {
        name: "nope",
        scope: "user",
        file: "test",
        config: { type: "stdio", command: "gyre-no-such-command", args: [], env: {} },
      },
    ]);
    await manager.waitForStartup(5000);
    expect(manager.statuses()[0]).toMatchObject({ state: "failed", error: expect.stringMatching(/ENOENT/) });
  });
});
