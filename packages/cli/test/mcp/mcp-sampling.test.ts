import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

/**
 * A JSON-mode run whose faux model calls server-everything's sampling tool; the server's
 * `sampling/createMessage` is answered by the same faux model's next response.
 */
async function runSampling(settings: Record<string, unknown>) {
  const { cwd, home } = await createWorkspace();
  await writeFile(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
  );
  await writeFile(join(home, "settings.json"), JSON.stringify(settings));
  const script = join(home, "script.json");
  await writeFile(
    script,
    JSON.stringify([
      {
        content: [
          {
            type: "toolCall",
            name: "mcp__everything__trigger-sampling-request",
            arguments: { prompt: "a haiku", maxTokens: 40 },
          },
        ],
      },
      { content: [{ type: "text", text: "sampled by gyre's model" }] },
      { content: [{ type: "text", text: "done" }] },
    ]),
  );
  const result = await runCli(["--mode", "json", "--provider", "faux", "--faux-script", script, "-p", "go"], {
    cwd,
    env: cliEnv(home),
  });
  const end = result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { type: string; isError?: boolean; result?: { content: { text: string }[] } })
    .find((event) => event.type === "tool_execution_end");
  return { result, end };
}

describe("MCP sampling", () => {
  it("answers server-everything's sampling request with the run's model when mcpSampling is allow", async () => {
    const { result, end } = await runSampling({ mcpSampling: "allow" });
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(false);
    const text = end?.result?.content[0]?.text ?? "";
    expect(text).toContain("LLM sampling result");
    expect(text).toContain("sampled by gyre's model");
    expect(text).toContain('"stopReason": "endTurn"');
  });

  it("denies sampling in a headless run by default and tells the server which setting allows it", async () => {
    const { result, end } = await runSampling({});
    expect(result.code).toBe(0);
    expect(end?.isError).toBe(true);
    expect(end?.result?.content[0]?.text).toContain('"mcpSampling": "allow"');
  });

  it("denies sampling when mcpSampling is deny", async () => {
    const { end } = await runSampling({ mcpSampling: "deny" });
    expect(end?.isError).toBe(true);
    expect(end?.result?.content[0]?.text).toContain('"mcpSampling": "deny"');
  });
});
