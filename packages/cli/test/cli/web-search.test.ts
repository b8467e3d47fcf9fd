/**
 * `--web-search` end to end (issue 18, "Web"): gyre in print mode against a real local server
 * replaying a recorded Anthropic web-search stream: the answer on stdout, the search and its
 * cited pages on stderr, the search kept in the session and sent back unchanged on `-c`.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const fixtures = new URL("../../../ai/test/fixtures/providers/anthropic-messages/", import.meta.url);
const search = readFileSync(new URL("sonnet4-web-search-citations.sse", fixtures));
const answer = readFileSync(new URL("sonnet45-short-text-padded-json.sse", fixtures));

/** The payloads of the recorded search stream, to compare what gyre sends back with what it got. */
const wire = search
  .toString("utf8")
  .split("\n")
  .filter((line) => line.startsWith("data:"))
  .map((line) => JSON.parse(line.slice(5)) as { type: string; index?: number; content_block?: unknown });
const resultBlock = wire.find((event) => event.type === "content_block_start" && event.index === 1)?.content_block as {
  content: unknown[];
};

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Answers request N with `bodies[N]` (the last for later ones) and records each request body. */
async function serve(bodies: Buffer[]): Promise<{ url: string; requests: Record<string, unknown>[] }> {
  const requests: Record<string, unknown>[] = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(bodies[Math.min(requests.length - 1, bodies.length - 1)]);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe("gyre --web-search", () => {
  it("prints the answer, reports the search and its cited pages, and sends the search back on -c", async () => {
    const { cwd, home } = await createWorkspace();
    const { url, requests } = await serve([search, answer]);
    const env = cliEnv(home, { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: url });
    const base = ["-p", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--no-tools"];
    const first = await runCli([...base, "--web-search", "How many people live in Tokyo?"], { cwd, env });
    expect(first.stderr).toContain(
      `gyre: searched: Tokyo population 2026 current — ${resultBlock.content.length} results\n`,
    );
    expect(first.stderr).toContain(
      "gyre:   cited: Tokyo Population 2026 <https://worldpopulationreview.com/cities/japan/tokyo>\n",
    );
    expect(first.stderr).toContain(
      "gyre:   cited: Greater Tokyo Area - Wikipedia <https://en.wikipedia.org/wiki/Greater_Tokyo_Area>\n",
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^Based on the search results, the current population of Tokyo[\s\S]*Demographics of Tokyo page\.\n$/,
    );
    expect(requests[0]?.tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);

    // The setting turns it on as the flag does; the stored search goes back unchanged.
    await writeFile(join(home, "settings.json"), JSON.stringify({ webSearch: true }));
    const second = await runCli([...base, "-c", "And Osaka?"], { cwd, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("2\n");
    expect(requests[1]?.tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
    const messages = requests[1]?.messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages[1]?.content[0]).toMatchObject({ type: "server_tool_use", id: "srvtoolu_01KYmV1c6SjLeWGNcNG4p2yi" });
    expect(messages[1]?.content[1]).toEqual(resultBlock);
  });
});
