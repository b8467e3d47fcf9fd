/**
 * The provider's web search in the terminal (issue 18, "Web"): a recorded Anthropic web-search
 * stream served on 127.0.0.1 shows as the answer plus one "searched:" line and the cited pages.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

const recorded = readFileSync(
  new URL("../../../ai/test/fixtures/providers/anthropic-messages/sonnet4-web-search-citations.sse", import.meta.url),
);

let replay: Server | undefined;
afterEach(async () => {
  await stopGyres();
  await new Promise<void>((resolve) => (replay ? replay.close(() => resolve()) : resolve()));
});

describe("web search in the TUI", () => {
  it("shows what was searched, how many pages came back and the pages the answer cites", async () => {
    const bodies: string[] = [];
    replay = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(recorded);
      });
    });
    await new Promise<void>((resolve) => replay?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(replay.address() as AddressInfo).port}`;
    const { tmux } = await startGyre(() => ({ text: "unused" }), {
      height: 60,
      width: 120,
      modelArgs: () => [
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-5",
        "--base-url",
        url,
        "--api-key",
        "sk-ant-test",
      ],
      args: ["--web-search", "--no-tools"],
    });
    await submit(tmux, "How many people live in Tokyo?");
    const screen = await tmux.waitFor("searched: Tokyo population 2026 current — ");
    expect(screen).toMatch(/searched: Tokyo population 2026 current — \d+ results/);
    expect(screen).toContain("cited: Tokyo Population 2026 <https://worldpopulationreview.com/cities/japan/tokyo>");
    // The answer's cited spans (one text block each on the wire) read as running text.
    expect(screen).toContain("Tokyo's 2026 population is now estimated at 36,953,600 according to World Population");
    expect(JSON.parse(bodies[0] ?? "{}").tools).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
  });
});
