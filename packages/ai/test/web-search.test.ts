/**
 * Web search through the provider's own server-side tool (issue 18, "Web"): the recorded streams
 * of Anthropic, OpenAI Responses and Gemini replayed over a real local HTTP server become kept
 * content (search calls, results, citations); the next request sends them back exactly as the
 * same API requires, and as text to any other API.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyAssistantMessageEvent } from "../src/apply-assistant-message-event.js";
import { stream } from "../src/index.js";
import type { AssistantMessage, Context, Message, Model, StreamOptions } from "../src/types.js";
import { fixturesDir, type LocalServer, type WireApi } from "./helpers/local-server.js";
import { startFixtureServer } from "./helpers/replay.js";
import { createTestModel } from "./helpers/test-model.js";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const searches: Record<"anthropic-messages" | "openai-responses" | "google-gemini", string> = {
  "anthropic-messages": "sonnet4-web-search-citations.sse",
  "openai-responses": "openai-web-search-call.sse",
  "google-gemini": "gemini25pro-google-search-grounding.sse",
};
const answers: Record<WireApi, string> = {
  "anthropic-messages": "sonnet45-short-text-padded-json.sse",
  "openai-completions": "openai-gpt5-simple-text-usage.sse",
  "openai-responses": "openai-gpt5-reasoning-summary-text.sse",
  "google-gemini": "gemini25pro-thought-summary-text.sse",
};

async function serve(api: WireApi, ...files: string[]): Promise<{ server: LocalServer; model: Model }> {
  const server = await startFixtureServer(api, ...files);
  servers.push(server);
  const baseUrl = api === "openai-completions" || api === "openai-responses" ? `${server.url}/v1` : server.url;
  return { server, model: createTestModel(api, baseUrl) };
}

const ask = (text: string, timestamp: number): Message => ({ role: "user", content: text, timestamp });

/** Streams `context`, rebuilding the partial message from the events as a UI would. */
async function streamAndRebuild(model: Model, context: Context, options: StreamOptions = {}) {
  const response = stream(model, context, { apiKey: "test-key", retry: { maxRetries: 0 }, ...options });
  let rebuilt: AssistantMessage | undefined;
  for await (const event of response) {
    if (event.type === "start") rebuilt = { ...structuredClone(event.message), content: [] };
    else if (rebuilt) applyAssistantMessageEvent(rebuilt, event);
  }
  const message = await response.result();
  expect(message.stopReason, message.errorMessage).not.toBe("error");
  return { message, rebuilt: rebuilt! };
}

/** The search turn of `api`, as a session would have stored it (through JSON). */
async function searchTurn(api: keyof typeof searches): Promise<AssistantMessage> {
  const { model } = await serve(api, searches[api]);
  const { message, rebuilt } = await streamAndRebuild(model, { messages: [ask("search", 1)] }, { webSearch: true });
  expect(rebuilt.content).toEqual(message.content);
  return JSON.parse(JSON.stringify(message)) as AssistantMessage;
}

/** Sends a follow-up after `turn` to `api` and returns the request body the server got. */
async function followUp(api: WireApi, turn: AssistantMessage, options: StreamOptions = {}) {
  const { server, model } = await serve(api, answers[api]);
  await streamAndRebuild(model, { messages: [ask("search", 1), turn, ask("and then?", 3)] }, options);
  return server.requests[0]?.body as Record<string, unknown>;
}

/** The `data:` payloads of a recorded SSE fixture. */
function wireEvents(api: WireApi, file: string): Record<string, unknown>[] {
  const text = readFileSync(join(fixturesDir, api, file), "utf8");
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

describe("Anthropic server-side web search", () => {
  it("keeps the search call, its results and the text's citations, as the events rebuild them", async () => {
    const message = await searchTurn("anthropic-messages");
    expect(message.content[0]).toMatchObject({
      type: "serverToolCall",
      id: "srvtoolu_01KYmV1c6SjLeWGNcNG4p2yi",
      name: "web_search",
      input: { query: "Tokyo population 2026 current" },
    });
    const result = message.content[1];
    expect(result?.type === "serverToolResult" && result.results[0]).toEqual({
      url: "https://worldpopulationreview.com/cities/japan/tokyo",
      title: "Tokyo Population 2026",
      pageAge: expect.any(String),
    });
    const cited = message.content[3];
    expect(cited?.type === "text" && cited.citations?.map((citation) => citation.url)).toEqual([
      "https://worldpopulationreview.com/cities/japan/tokyo",
      "https://en.wikipedia.org/wiki/Greater_Tokyo_Area",
    ]);
    expect(cited?.type === "text" && cited.citations?.[0]?.citedText).toContain("36,953,600");
  });

  it("sends the search blocks and citations back unchanged, and asks for the server tool", async () => {
    const turn = await searchTurn("anthropic-messages");
    const body = await followUp("anthropic-messages", turn, {
      webSearch: { maxUses: 3, allowedDomains: ["a.example"] },
    });
    expect(body.tools).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 3, allowed_domains: ["a.example"] },
    ]);
    const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
    const assistant = messages[1]!;
    expect(assistant.role).toBe("assistant");
    const wire = wireEvents("anthropic-messages", searches["anthropic-messages"]);
    const started = wire.filter((event) => event.type === "content_block_start");
    expect(assistant.content[0]).toEqual({
      type: "server_tool_use",
      id: "srvtoolu_01KYmV1c6SjLeWGNcNG4p2yi",
      name: "web_search",
      input: { query: "Tokyo population 2026 current" },
    });
    // The result block exactly as Anthropic sent it: encrypted_content unaltered.
    expect(assistant.content[1]).toEqual(started[1]?.content_block);
    const citations = wire
      .filter((event) => event.type === "content_block_delta" && event.index === 3)
      .flatMap((event) => {
        const delta = event.delta as { type: string; citation?: Record<string, unknown> };
        return delta.type === "citations_delta" ? [delta.citation] : [];
      });
    expect(assistant.content[3]).toMatchObject({ type: "text", citations });
    expect(assistant.content).toHaveLength(15);
  });

  it("sends no server tool when web search is off", async () => {
    const turn = await searchTurn("anthropic-messages");
    const body = await followUp("anthropic-messages", turn);
    expect(body.tools).toBeUndefined();
  });

  it("resends a paused turn's last search call as is, and turns it into text once the user spoke after it", async () => {
    const { model } = await serve("anthropic-messages", "sonnet45-pause-turn-web-search.sse");
    const { message: paused } = await streamAndRebuild(
      model,
      { messages: [ask("search a lot", 1)] },
      { pauseTurnContinuations: 0 },
    );
    expect(paused.rawStopReason).toBe("pause_turn");
    const last = paused.content.at(-1);
    expect(last?.type).toBe("serverToolCall");

    const resend = await serve("anthropic-messages", answers["anthropic-messages"]);
    await streamAndRebuild(resend.model, { messages: [ask("search a lot", 1), paused] });
    const resendBody = resend.server.requests[0]?.body as { messages: { content: { type: string }[] }[] } | undefined;
    const resent = resendBody?.messages[1];
    expect(resent?.content.at(-1)?.type).toBe("server_tool_use");

    const body = await followUp("anthropic-messages", paused);
    const content = (body.messages as { content: { type: string; text?: string }[] }[])[1]?.content ?? [];
    expect(content.at(-1)).toEqual({
      type: "text",
      text: '(web_search: "latest news on the air quality in San Francisco today")',
    });
    expect(content.filter((block) => block.type === "server_tool_use")).toHaveLength(10);
    expect(content.filter((block) => block.type === "web_search_tool_result")).toHaveLength(10);
  });
});

describe("Anthropic paused turns", () => {
  const pause = "sonnet45-pause-turn-web-search.sse";

  it("sends a paused turn back as it is, and the server's continuation extends the same answer", async () => {
    const { server, model } = await serve("anthropic-messages", pause, answers["anthropic-messages"]);
    const { message, rebuilt } = await streamAndRebuild(model, { messages: [ask("search a lot", 1)] });
    expect(server.requests).toHaveLength(2);
    const body = server.requests[1]?.body as { messages: { role: string; content: { type: string }[] }[] } | undefined;
    const resent = body?.messages ?? [];
    expect(resent.map((entry) => entry.role)).toEqual(["user", "assistant"]);
    expect(resent[1]?.content).toHaveLength(25);
    expect(resent[1]?.content.at(-1)?.type).toBe("server_tool_use");
    expect(message.content).toHaveLength(26);
    expect(message.content.at(-1)).toEqual({ type: "text", text: "2" });
    expect(rebuilt.content).toEqual(message.content);
    expect(message).toMatchObject({ stopReason: "stop", rawStopReason: "end_turn" });
    // Both requests were billed: the answer's usage is their sum.
    expect(message.usage).toMatchObject({ input: 404_500 + 20, output: 943 + 5 });
  });

  it("keeps the paused message as the answer once the continuations run out", async () => {
    const { server, model } = await serve("anthropic-messages", pause);
    const { message } = await streamAndRebuild(model, { messages: [ask("search a lot", 1)] });
    expect(server.requests).toHaveLength(5);
    expect(message.rawStopReason).toBe("pause_turn");
    expect(message.usage.input).toBe(5 * 404_500);
    const capped = await serve("anthropic-messages", pause);
    await streamAndRebuild(capped.model, { messages: [ask("search a lot", 1)] }, { pauseTurnContinuations: 1 });
    expect(capped.server.requests).toHaveLength(2);
  });
});

describe("OpenAI Responses web search", () => {
  it("keeps the web_search_call item as a call and its result, and url_citation annotations as citations", async () => {
    const message = await searchTurn("openai-responses");
    const [call, result, text] = message.content;
    expect(call).toMatchObject({
      type: "serverToolCall",
      id: "ws_0200025d411b0585016a3c13b4825c81a391999cec332e6f02",
      name: "web_search",
      input: { query: "current population of Tokyo 2024" },
    });
    expect(result).toMatchObject({ type: "serverToolResult", toolCallId: call?.type === "serverToolCall" && call.id });
    expect(text?.type === "text" && text.citations).toEqual([
      {
        url: "https://www.toukei.metro.tokyo.lg.jp/index.htm?utm_source=openai",
        title: "東京都の統計",
        startIndex: 239,
        endIndex: 333,
      },
    ]);
  });

  it("sends the web_search_call item back verbatim and asks for the web_search tool with its sources", async () => {
    const turn = await searchTurn("openai-responses");
    const body = await followUp("openai-responses", turn, { webSearch: true });
    expect(body.tools).toEqual([{ type: "web_search" }]);
    expect(body.include).toEqual(["web_search_call.action.sources"]);
    const wire = wireEvents("openai-responses", searches["openai-responses"]);
    const item = wire.find((event) => event.type === "response.output_item.done")?.item;
    const input = body.input as Record<string, unknown>[];
    expect(input[1]).toEqual(item);
    expect(input[2]).toMatchObject({ role: "assistant" });
  });
});

describe("Gemini Google Search grounding", () => {
  it("keeps the queries, the pages and the supports as a search call, its result and citations", async () => {
    const message = await searchTurn("google-gemini");
    const [text, call, result] = message.content;
    expect(call).toMatchObject({
      type: "serverToolCall",
      name: "web_search",
      input: { queries: ["weather in San Francisco today"] },
    });
    expect(result?.type === "serverToolResult" && result.results.map((page) => page.title)).toEqual([
      "Weather information for San Francisco, CA, US",
      "timeanddate.com",
      "weather.gov",
      "wunderground.com",
      "accuweather.com",
    ]);
    if (text?.type !== "text") throw new Error("the first block is the answer text");
    expect(text.citations?.length).toBeGreaterThanOrEqual(8);
    for (const citation of text.citations ?? []) {
      expect(text.text.slice(citation.startIndex, citation.endIndex)).toBe(citation.citedText);
    }
  });

  it("asks for googleSearch and sends what was searched back as text", async () => {
    const turn = await searchTurn("google-gemini");
    const body = await followUp("google-gemini", turn, { webSearch: true });
    expect(body.tools).toEqual([{ googleSearch: {} }]);
    const contents = body.contents as { role: string; parts: { text?: string }[] }[];
    const texts = contents[1]?.parts.map((part) => part.text) ?? [];
    expect(texts[1]).toBe('(web_search: "weather in San Francisco today")');
    expect(texts[2]).toContain("1. Weather information for San Francisco, CA, US — https://www.google.com/search");
  });
});

describe("handing a searched conversation to another API", () => {
  const targets: WireApi[] = ["openai-completions", "openai-responses", "google-gemini"];
  for (const target of targets) {
    it(`turns Anthropic's search into text for ${target}, with nothing of Anthropic's wire left`, async () => {
      const turn = await searchTurn("anthropic-messages");
      const body = JSON.stringify(await followUp(target, turn));
      expect(body).toContain('(web_search: \\"Tokyo population 2026 current\\")');
      expect(body).toContain("Tokyo Population 2026 — https://worldpopulationreview.com/cities/japan/tokyo");
      expect(body).not.toContain("server_tool_use");
      expect(body).not.toContain("encrypted_content");
      expect(body).not.toContain("srvtoolu_");
    });
  }

  it("turns a Responses search into text for Anthropic, not a web_search_call it would reject", async () => {
    const turn = await searchTurn("openai-responses");
    const body = await followUp("anthropic-messages", turn);
    const content = (body.messages as { content: { type: string; text?: string }[] }[])[1]?.content ?? [];
    expect(content.map((block) => block.type)).toEqual(["text", "text", "text"]);
    expect(content[0]?.text).toBe('(web_search: "current population of Tokyo 2024")');
    expect(content[1]?.text).toBe("(web_search returned no results)");
    expect(JSON.stringify(body)).not.toContain("ws_0200025d");
  });
});
