import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const features = require.resolve("@modelcontextprotocol/server-everything/dist/docs/features.md");

async function runWithPrompt(prompt: string) {
  const { cwd, home } = await createWorkspace();
  await writeFile(
    join(home, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }),
  );
  const script = join(home, "s.json");
  await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "read it" }] }]));
  const result = await runCli(["--mode", "json", "--provider", "faux", "--faux-script", script, "-p", prompt], {
    cwd,
    env: cliEnv(home),
  });
  const user = result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } })
    .find((event) => event.type === "message_start" && event.message?.role === "user");
  return { result, sent: user?.message?.content };
}

describe("@server:uri mentions", () => {
  it("attaches the text of a mentioned resource to the prompt the model gets", async () => {
    const uri = "demo://resource/static/document/features.md";
    const { result, sent } = await runWithPrompt(`Summarize @everything:${uri}. Mail me@example.com:later too`);
    expect(result.code).toBe(0);
    expect(typeof sent).toBe("string");
    const text = sent as string;
    expect(text.startsWith(`Summarize @everything:${uri}. Mail me@example.com:later too\n\n`)).toBe(true);
    expect(text).toContain(`<mcp-resource server="everything" uri="${uri}">`);
    const firstLine = (await readFile(features, "utf8")).split("\n")[0] ?? "";
    expect(firstLine.length).toBeGreaterThan(0);
    expect(text).toContain(firstLine);
    expect(text.match(/<mcp-resource /g)).toHaveLength(1);
    // A -p run that starts an MCP server: about 4 s, over 20 s at load 22 with the suite's workers.
  }, 60_000);

  it("fails with a sentence naming a mention the server cannot read", async () => {
    const { result } = await runWithPrompt("look at @everything:demo://resource/missing/nothing-here");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("Cannot read @everything:demo://resource/missing/nothing-here");
  }, 60_000);
});
