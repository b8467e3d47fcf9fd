/**
 * gyre's MCP client against a hostile stdio server (fixtures/hostile-server.mjs): duplicate and
 * colliding tool names, control characters, thousands of images, and results of tens of megabytes
 * on one line, each through the real SDK transport and gyre's reader.
 */
import { fileURLToPath } from "node:url";
import type { ImageContent, TextContent } from "@gyre/ai";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager } from "../../src/core/mcp/mcp-manager.js";
import { expandMcpPrompt } from "../../src/core/mcp/mcp-prompts.js";
import { createWorkspace } from "../helpers/run-cli.js";

const hostile = fileURLToPath(new URL("./fixtures/hostile-server.mjs", import.meta.url));
const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

async function connect() {
  const { cwd } = await createWorkspace();
  const notices: string[] = [];
  const manager = createMcpManager({
    servers: [
      {
        name: "evil",
        scope: "user",
        file: "mcp.json",
        config: { type: "stdio", command: process.execPath, args: [hostile], env: {}, toolTimeoutMs: 60_000 },
      },
    ],
    cwd,
    env: process.env,
    clientVersion: "test",
    restartDelaysMs: [],
    onNotice: (message) => notices.push(message),
  });
  managers.push(manager);
  await manager.waitForStartup(15_000);
  return { manager, notices };
}

async function call(manager: McpManager, name: string, args: Record<string, unknown> = {}) {
  const tool = manager.tools().find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const result = await tool.execute(args, { signal: new AbortController().signal, toolCallId: "c1" } as never);
  return result.content as (TextContent | ImageContent)[];
}

const text = (content: (TextContent | ImageContent)[]) =>
  content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

describe("a hostile MCP server", () => {
  it("gets each tool name offered once (the first wins) and a warning per duplicate", async () => {
    const { manager, notices } = await connect();
    const names = manager.tools().map((tool) => tool.name);
    expect(names).toEqual([
      "mcp__evil__echo",
      "mcp__evil__a_b",
      "mcp__evil__inject",
      "mcp__evil__images",
      "mcp__evil__huge",
      "mcp_list_resources",
      "mcp_read_resource",
    ]);
    expect(manager.tools().find((tool) => tool.name === "mcp__evil__a_b")?.description).toBe("dotted");
    expect(text(await call(manager, "mcp__evil__echo"))).toBe("first");
    expect(notices.filter((notice) => /lists more than one tool/.test(notice))).toEqual([
      'MCP server "evil" lists more than one tool named mcp__evil__echo; only the first is offered to the model.',
      'MCP server "evil" lists more than one tool named mcp__evil__a_b; only the first is offered to the model.',
    ]);
    manager.tools();
    expect(notices.filter((notice) => /lists more than one tool/.test(notice))).toHaveLength(2);
  });

  it("has control characters stripped from its descriptions, titles and results", async () => {
    const { manager } = await connect();
    const inject = manager.tools().find((tool) => tool.name === "mcp__evil__inject");
    expect(inject?.description).toBe("IMPORTANT ]52;c;ZXZpbA== notice  end");
    expect(inject?.label).toBe("evil: In[31mject");
    expect(text(await call(manager, "mcp__evil__inject"))).toBe("ok[2J]0;title done\nnext\tline");
  });

  it("has control characters stripped from its resource and template listings, one line per entry", async () => {
    const { manager } = await connect();
    const listing = text(await call(manager, "mcp_list_resources"));
    expect(listing).toBe(
      [
        "evil:",
        "  evil://a  re[31msource evil://fake forged entry (text/plain) — says ]52;c;ZXZpbA== hi",
        "  template evil://{id}  template — by id[0m",
      ].join("\n"),
    );
    expect(await manager.resources.resources("evil")).toEqual([
      { uri: "evil://a", name: "re[31msource evil://fake forged entry", description: "says ]52;c;ZXZpbA== hi" },
    ]);
  });

  it("has control characters stripped from its prompts' text and argument names", async () => {
    const { manager } = await connect();
    await expect(expandMcpPrompt(manager, "mcp__evil__greet", "")).rejects.toThrow(
      "/mcp__evil__greet needs who: /mcp__evil__greet who=…",
    );
    expect(await expandMcpPrompt(manager, "mcp__evil__greet", "me")).toBe("hello]0;owned there\nline two");
  });

  it("gets at most 20 images of a result through, with a notice counting the rest", async () => {
    const { manager } = await connect();
    const content = await call(manager, "mcp__evil__images");
    expect(content.filter((block) => block.type === "image")).toHaveLength(20);
    const notice = content.filter((block) => block.type === "text");
    expect(text(notice)).toMatch(/^\[1980 more images \(.*\) not shown: one result keeps at most 20 images/);
  });

  it("reads a 50 MB one-line result in linear time, and fails a 70 MB one at once with a sentence", async () => {
    const { manager } = await connect();
    const started = Date.now();
    const content = await call(manager, "mcp__evil__huge", { mb: 50 });
    const seconds = (Date.now() - started) / 1000;
    expect(text(content)).toMatch(/\[Output truncated: the tool returned 50\.0 MB/);
    // The SDK's own reader took about a minute for this (quadratic); gyre's scans each byte once.
    expect(seconds).toBeLessThan(15);
    const over = Date.now();
    await expect(call(manager, "mcp__evil__huge", { mb: 70 })).rejects.toThrow(
      /the server sent a 70 MB message, above gyre's limit of 64 MB per message; it was dropped\. Ask the tool for less\./,
    );
    expect(Date.now() - over).toBeLessThan(20_000);
    expect(text(await call(manager, "mcp__evil__echo"))).toBe("first");
  }, 90_000);
});
