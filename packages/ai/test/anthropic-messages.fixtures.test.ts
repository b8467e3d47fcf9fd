import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "../src/types.js";
import type { LocalServer } from "./helpers/local-server.js";
import { expectSameForEverySplit, replayHeaders, splitsFor, startReplayServer } from "./helpers/replay.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

/** What the fixtures README says a block must be; long strings are checked by prefix and length. */
type Expected =
  | { text: string | { prefix: string; length: number } }
  | { thinking: { prefix: string; length: number } | string; signatureLength: number }
  | { redactedDataLength: number }
  | { toolCall: { id: string; name: string; args: Record<string, unknown> } }
  | { serverToolCall: { id: string; query: string } }
  | { serverToolResult: { toolCallId: string } };

type Case = {
  file: string;
  content: Expected[];
  /** When given, only these leading blocks are checked and the total count must be `count`. */
  count?: number;
  last?: Expected;
  stopReason: AssistantMessage["stopReason"];
  raw: string;
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
};

const cases: Case[] = [
  {
    file: "compatible-proxy-message-delta-input-tokens.jsonl",
    content: [{ text: "pong" }],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 61, output: 2 },
  },
  {
    file: "haiku45-parallel-tool-use-empty-input.sse",
    content: [
      { toolCall: { id: "toolu_01LtHJmixrs9NcWQkK8hu8hj", name: "pelican_name_generator", args: {} } },
      { toolCall: { id: "toolu_01N8a4jWyf116qKTMqKKmjyt", name: "pelican_name_generator", args: {} } },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 542, output: 62, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "haiku45-prefill-stop-sequence.sse",
    content: [
      {
        text: '\ndef pelican():\n    return "A large waterbird with a long bill and a throat pouch for catching fish."\n',
      },
    ],
    stopReason: "stop",
    raw: "stop_sequence",
    usage: { input: 16, output: 28, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "haiku45-thinking-then-tool-use.sse",
    content: [
      {
        thinking: {
          prefix: "The user wants me to:\n1. Use the fixed_version tool\n2. Tell them the version\n3. ",
          length: 180,
        },
        signatureLength: 524,
      },
      { toolCall: { id: "toolu_01825dXWLSoJwCst1qTsiWdb", name: "fixed_version", args: {} } },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 598, output: 92, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "opus46-adaptive-thinking-text-before-thinking.sse",
    content: [
      { text: "\n\n" },
      { thinking: "Brief answer with two pet pelican names.", signatureLength: 284 },
      { text: "1. **Captain Scoop**\n2. **Gullet**" },
    ],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 34, output: 44, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "opus46-tool-use-only-computer.sse",
    content: [{ toolCall: { id: "toolu_01DkSrnHZMNWNEqf7wznra4W", name: "computer", args: { action: "screenshot" } } }],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 1842, output: 52, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet4-simple-text.sse",
    content: [
      {
        text: 'Olá! (That\'s "hi" in Portuguese)\n\nYou could also say "Oi!" which is a more casual way to say hi in Portuguese.',
      },
    ],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 16, output: 38, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet4-text-then-parallel-tool-use.sse",
    content: [
      { text: "I'll add and multiply the numbers 2 and 3 for you." },
      { toolCall: { id: "toolu_01UYxUYC2zRPY8wiutnF48eP", name: "add", args: { a: 2, b: 3 } } },
      { toolCall: { id: "toolu_01VaRx1jpWCvPhi7L4kywAcd", name: "multiply", args: { a: 2, b: 3 } } },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 502, output: 137, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet4-thinking-signature-tool-use.sse",
    content: [
      {
        thinking: {
          prefix: "The user is asking for weather information for Florence, Italy. I have access to",
          length: 301,
        },
        signatureLength: 636,
      },
      { toolCall: { id: "toolu_01Js4AMfx5qpTLhwTusnvT68", name: "weather", args: { location: "Florence, Italy" } } },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 424, output: 119, cacheRead: 0, cacheWrite: 0 },
  },
  {
    // The search call and its result are kept (wire blocks 0 and 1), then 13 text blocks.
    file: "sonnet4-web-search-citations.sse",
    content: [
      { serverToolCall: { id: "srvtoolu_01KYmV1c6SjLeWGNcNG4p2yi", query: "Tokyo population 2026 current" } },
      { serverToolResult: { toolCallId: "srvtoolu_01KYmV1c6SjLeWGNcNG4p2yi" } },
      {
        text: "Based on the search results, the current population of Tokyo depends on which definition is used:\n\n**Greater Tokyo Metropolitan Area**: ",
      },
      { text: "Tokyo's 2026 population is now estimated at 36,953,600" },
      { text: " according to World Population Review. The United Nations also estimates " },
      { text: "the total population at 36,954,512" },
    ],
    count: 15,
    last: {
      text: "\n\n**Sources**: World Population Review, United Nations World Urbanization Prospects, and Wikipedia Demographics of Tokyo page.",
    },
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 13520, output: 415, cacheRead: 0, cacheWrite: 0 },
  },
  {
    // Thinking, text, then search calls and results; the last call has no result (the turn paused).
    file: "sonnet45-pause-turn-web-search.sse",
    content: [
      {
        thinking: {
          prefix: "The user wants me to run a series of web searches. They've listed 15 different s",
          length: 1051,
        },
        signatureLength: 1688,
      },
      { text: "I'll run these searches one at a time as requested. Let me start:" },
      { serverToolCall: { id: "srvtoolu_01FGPZ2P6yPXWdiD1Cxjpix3", query: "San Francisco weather today" } },
      { serverToolResult: { toolCallId: "srvtoolu_01FGPZ2P6yPXWdiD1Cxjpix3" } },
      { serverToolCall: { id: "srvtoolu_01FFhqUX7uk2uakLEqo1v9D2", query: "San Francisco sunrise time today" } },
    ],
    count: 25,
    last: {
      serverToolCall: {
        id: "srvtoolu_01NKrV3hGbcHeBVtaTKBHRuA",
        query: "latest news on the air quality in San Francisco today",
      },
    },
    stopReason: "stop",
    raw: "pause_turn",
    usage: { input: 404500, output: 943, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet45-redacted-thinking.sse",
    content: [
      { redactedDataLength: 744 },
      { redactedDataLength: 296 },
      {
        text: {
          prefix:
            "I notice that you've sent what appears to be some kind of test string or command. I don't have any special \"magic string\" triggers or backdoor commands that wou",
          length: 359,
        },
      },
    ],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 92, output: 189, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet45-short-text-padded-json.sse",
    content: [{ text: "2" }],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 20, output: 5, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet45-thinking-context-management.jsonl",
    content: [
      {
        thinking: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
        signatureLength: 332,
      },
      { text: "925 ÷ 5 = 185" },
    ],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 69, output: 53, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet45-tool-input-escaped-quotes.jsonl",
    content: [
      {
        toolCall: {
          id: "toolu_01Cr31vcGoeeRgi3Eo5Ds8qN",
          name: "website_update",
          args: {
            website_path: "/home/user/pace-landing",
            tasks: [
              {
                description:
                  'Today you post every run to Strava, but Strava does not answer the question: "What should I do next after this run?". It is a great log, but it is not adaptive.',
                type: "feature",
                passes: false,
              },
            ],
          },
        },
      },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 912, output: 118, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet45-tool-no-args.jsonl",
    content: [
      { text: "I'll update the issue list for you." },
      { toolCall: { id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", args: {} } },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 565, output: 48, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "sonnet46-compaction-block.sse",
    content: [{ text: "Hello! 👋" }],
    stopReason: "stop",
    raw: "end_turn",
    usage: { input: 181, output: 8, cacheRead: 0, cacheWrite: 0 },
  },
  {
    file: "vertex-claude37-text-tool-use.sse",
    content: [
      {
        text: "I'll help you check the weather in Florence, Italy. Let me get that information for you right away.",
      },
      {
        toolCall: { id: "toolu_vrtx_01JhPy9eXqgjLWmUpoCiEkCs", name: "weather", args: { location: "Florence,Italy" } },
      },
    ],
    stopReason: "toolUse",
    raw: "tool_use",
    usage: { input: 394, output: 76, cacheRead: 0, cacheWrite: 0 },
  },
];

let server: LocalServer;
beforeAll(async () => {
  server = await startReplayServer("anthropic-messages");
});
afterAll(() => server.close());

const replay = (file: string, split: string) =>
  run(createTestModel("anthropic-messages", server.url), {
    apiKey: "test-key",
    headers: replayHeaders(file, split),
    retry: { maxRetries: 0 },
    // One recording, one response: a paused turn is decoded as it is, not continued.
    pauseTurnContinuations: 0,
  });

function checkBlock(actual: AssistantMessage["content"][number] | undefined, expected: Expected): void {
  const matchText = (value: string, want: string | { prefix: string; length: number }) => {
    if (typeof want === "string") expect(value).toBe(want);
    else {
      expect(value.startsWith(want.prefix)).toBe(true);
      expect(value.length).toBe(want.length);
    }
  };
  if ("text" in expected) {
    expect(actual?.type).toBe("text");
    if (actual?.type === "text") matchText(actual.text, expected.text);
  } else if ("thinking" in expected) {
    expect(actual?.type).toBe("thinking");
    if (actual?.type !== "thinking") return;
    matchText(actual.thinking, expected.thinking);
    expect(actual.signature?.length).toBe(expected.signatureLength);
    expect(actual.redacted).toBeUndefined();
  } else if ("redactedDataLength" in expected) {
    expect(actual).toMatchObject({ type: "thinking", thinking: "", redacted: true });
    if (actual?.type === "thinking") expect(actual.signature?.length).toBe(expected.redactedDataLength);
  } else if ("serverToolCall" in expected) {
    const { id, query } = expected.serverToolCall;
    const raw = { type: "server_tool_use", id, name: "web_search", input: { query } };
    expect(actual).toEqual({ type: "serverToolCall", id, name: "web_search", input: { query }, raw });
  } else if ("serverToolResult" in expected) {
    expect(actual).toMatchObject({ type: "serverToolResult", toolCallId: expected.serverToolResult.toolCallId });
    if (actual?.type !== "serverToolResult") return;
    // Every page is listed, and the wire block is kept whole, encrypted content included.
    expect(actual.results.length).toBeGreaterThan(0);
    const raw = actual.raw as { type: string; content: { url: string; encrypted_content: string }[] };
    expect(raw.type).toBe("web_search_tool_result");
    expect(raw.content.map((item) => item.url)).toEqual(actual.results.map((result) => result.url));
    expect(raw.content.every((item) => item.encrypted_content.length > 0)).toBe(true);
  } else {
    expect(actual).toEqual({
      type: "toolCall",
      id: expected.toolCall.id,
      name: expected.toolCall.name,
      arguments: expected.toolCall.args,
    });
  }
}

/** Deltas must rebuild each text/thinking block exactly, and every start has its end. */
function checkEvents(events: AssistantMessageEvent[], message: AssistantMessage): void {
  const joined = new Map<number, string>();
  let starts = 0;
  let ends = 0;
  for (const event of events) {
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      joined.set(event.contentIndex, (joined.get(event.contentIndex) ?? "") + event.delta);
    }
    if (event.type.endsWith("_start") && event.type !== "start") starts++;
    if (event.type.endsWith("_end")) ends++;
  }
  expect(starts).toBe(message.content.length);
  expect(ends).toBe(message.content.length);
  message.content.forEach((block, index) => {
    if (block.type === "text") expect(joined.get(index) ?? "").toBe(block.text);
    if (block.type === "thinking") expect(joined.get(index) ?? "").toBe(block.thinking);
  });
  expect(events.at(-1)?.type).toBe("done");
}

describe("anthropic-messages replays every recorded stream", () => {
  it("covers every fixture file", async () => {
    const { readdirSync } = await import("node:fs");
    const { fixturesDir } = await import("./helpers/local-server.js");
    const files = readdirSync(`${fixturesDir}anthropic-messages`).sort();
    expect(cases.map((entry) => entry.file).sort()).toEqual(files);
  });

  for (const entry of cases) {
    it(`parses ${entry.file} into the expected message, whatever the chunking`, async () => {
      const { message, events } = await replay(entry.file, "whole");
      if (entry.count !== undefined) expect(message.content).toHaveLength(entry.count);
      else expect(message.content).toHaveLength(entry.content.length);
      for (const [index, expected] of entry.content.entries()) checkBlock(message.content[index], expected);
      if (entry.last) checkBlock(message.content.at(-1), entry.last);
      expect(message.stopReason).toBe(entry.stopReason);
      expect(message.rawStopReason).toBe(entry.raw);
      expect(message.errorMessage).toBeUndefined();
      expect(message.usage).toMatchObject({
        input: entry.usage.input,
        output: entry.usage.output,
        cacheRead: entry.usage.cacheRead ?? 0,
        cacheWrite: entry.usage.cacheWrite ?? 0,
      });
      expect(message.usage.cost.total).toBeGreaterThan(0);
      expect(message.responseId).toBeTruthy();
      checkEvents(events, message);

      const splits = splitsFor("anthropic-messages", entry.file, ["1", "2", "3"]);
      await expectSameForEverySplit((split) => replay(entry.file, split), { message, events }, { splits });
    });
  }
});
