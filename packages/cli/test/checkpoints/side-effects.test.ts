/**
 * Which calls take a checkpoint: an MCP tool the server marks `readOnlyHint` does not, one
 * without the hint does (it may change files), as do extension tools unless they say `readOnly`.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { readSessionLines } from "./workspace.js";

const trouble = fileURLToPath(new URL("../mcp/fixtures/trouble-server.mjs", import.meta.url));

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const args = ["--provider", "openai", "--model", "gpt-4o", "--sandbox", "off"];

describe("tools that declare their side effects", () => {
  it("takes no checkpoint for a read-only MCP tool and one for a tool without the hint", async () => {
    const { cwd, home } = await createWorkspace();
    const config = join(home, "..", "mcp.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { trouble: { command: process.execPath, args: [trouble] } } }),
    );
    await writeFile(join(cwd, "readme.txt"), "a workspace\n");
    const extension = join(cwd, "reader.mjs");
    await writeFile(
      extension,
      `export default function (gyre) {
        gyre.registerTool({ name: "look", label: "look", description: "Reads.", readOnly: true,
          parameters: { type: "object", properties: {} },
          execute: async () => ({ content: [{ type: "text", text: "looked" }] }) });
      }\n`,
    );
    server = await startFakeModelServer({
      respond: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== "user") return { text: "done" };
        const text = JSON.stringify(last.content);
        if (text.includes("peek"))
          return {
            toolCalls: [
              { name: "mcp__trouble__peek", arguments: {} },
              { name: "look", arguments: {} },
            ],
          };
        return { toolCalls: [{ name: "mcp__trouble__stamp", arguments: {} }] };
      },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    const common = [...args, "--mcp-config", config, "--extension", extension];
    const peek = await runCli([...common, "-p", "peek"], { cwd, env });
    expect(peek.stderr).not.toContain("Error");
    expect(peek.code).toBe(0);
    let { lines } = await readSessionLines(home);
    const results = lines.filter((line) => line.message?.role === "toolResult");
    expect(results).toHaveLength(2);
    expect(lines.filter((line) => line.type === "checkpoint")).toEqual([]);

    expect((await runCli([...common, "-c", "-p", "stamp"], { cwd, env })).code).toBe(0);
    ({ lines } = await readSessionLines(home));
    expect(lines.filter((line) => line.type === "checkpoint").map((line) => line.reason)).toEqual(["turn", "turn_end"]);
  });
});
