import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createFauxModel } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "./temp-dirs.js";

const require = createRequire(import.meta.url);
const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const memory = { command: process.execPath, args: [memoryServer] };

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
  // The user's own servers, which an integrator may not want.
  await writeFile(join(dirs.home, "mcp.json"), JSON.stringify({ mcpServers: { users: memory } }));
});
afterEach(() => dirs.remove());

describe("createAgentSession's mcp option", () => {
  it("starts none of the user's servers with mcp: false", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: "no servers" }] }]);
    const { session, dispose } = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: faux.model,
      mcp: false,
    });
    await session.prompt("hi");
    expect(session.mcpStatuses()).toEqual([]);
    expect(faux.contexts[0]?.tools?.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
    await dispose();
  });

  it("starts the servers of a config object, and the first prompt waits for them: their tools are there at once", async () => {
    const faux = createFauxModel([
      { content: [{ type: "toolCall", name: "mcp__given__read_graph", arguments: {} }] },
      { content: [{ type: "text", text: "read it" }] },
    ]);
    const { session, dispose } = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: faux.model,
      mcp: { mcpServers: { given: memory } },
    });
    const result = await session.prompt("read the graph");
    expect(result.reason).toBe("stop");
    const names = session.mcpStatuses().map((status) => `${status.name}:${status.state}`);
    expect(names.sort()).toEqual(["given:connected", "users:connected"]);
    const toolResult = session.messages.find((message) => message.role === "toolResult");
    expect(toolResult).toMatchObject({ toolName: "mcp__given__read_graph", isError: false });
    await dispose();
    expect(session.mcpStatuses().every((status) => status.state === "closed")).toBe(true);
  });
});
