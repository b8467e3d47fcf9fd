import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../src/types.js";
import type { LocalServer } from "./helpers/local-server.js";
import { expectSameForEverySplit, replayHeaders, splitsFor, startReplayServer } from "./helpers/replay.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

/** What the fixtures README says the final message is, in gyre's terms. */
type Expected = {
  text?: string;
  /** Exact thinking text, or its first 100 characters and total length (as the README shows it). */
  thinking?: string | { start: string; length: number };
  thinkingSignature?: string;
  toolCalls?: [id: string, name: string, args: Record<string, unknown>][];
  stopReason: AssistantMessage["stopReason"];
  rawStopReason?: string;
  /** input = prompt − cached, output = completion (incl. reasoning), cacheRead = cached, total. */
  usage?: [input: number, output: number, cacheRead: number, total: number];
  error?: string;
};

const add = { a: 2, b: 3 };
const expectations: Record<string, Expected> = {
  "anthropic-openai-compat-tool-call-index1.sse": {
    text: "Reading it.",
    toolCalls: [["toolu_sanitized", "read_file", { path: "a.txt" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
  },
  "azure-gpt5mini-tool-call.sse": {
    toolCalls: [["call_tWA8BJziGlCyhQEXhEHn6eXK", "weather", { location: "Florence, Italy" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [145, 154, 0, 299],
  },
  "deepseek-reasoner-reasoning-tool-call.jsonl": {
    thinking: {
      start: "The user is asking for the weather in San Francisco. I need to use the weather tool to get this info",
      length: 191,
    },
    toolCalls: [["call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", { location: "San Francisco" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    // prompt 339 of which 320 cached (prompt_cache_hit_tokens / cached_tokens)
    usage: [19, 83, 320, 422],
  },
  "groq-gptoss120b-error-event-tool-use-failed.sse": {
    thinking: {
      start: "We need to call the tool with invalid parameters first, then second call with valid args. The user w",
      length: 412,
    },
    stopReason: "error",
    error:
      "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema",
  },
  "groq-kimik2-parallel-tool-calls.sse": {
    text: "I'll perform both addition and multiplication on the numbers 2 and 3 for you.",
    toolCalls: [
      ["functions.add:0", "add", add],
      ["functions.multiply:1", "multiply", add],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [201, 58, 0, 259],
  },
  "huggingface-router-kimik2-tool-call.sse": {
    toolCalls: [["functions.weather:0", "weather", { location: "Florence,Italy" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [93, 21, 0, 114],
  },
  "llamacpp-gptoss20b-reasoning-tool-call.sse": {
    thinking: "User wants weather in Florence, Italy. We can use the weather function.",
    toolCalls: [["g2KOIWzn722hzEaZQmNVP4roUPEiYafL", "weather", { location: "Florence, Italy" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [139, 41, 0, 180],
  },
  "mistral-glm-tool-call-empty-name-continuation.jsonl": {
    toolCalls: [["chatcmpl-tool-9f149c74c42f265b", "webSearchTool", { query: "current Berlin weather" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [43, 14, 128, 185],
  },
  "mistral-small-tool-call-no-index.jsonl": {
    toolCalls: [["gSIMJiOkT", "weather", { location: "San Francisco" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [124, 22, 0, 146],
  },
  "ollama-parallel-tool-calls.gyre.sse": {
    toolCalls: [
      ["call_4k2m9x7q", "list_files", { path: "src" }],
      ["call_p8v3n1zd", "list_files", { path: "test", recursive: true }],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
  },
  "openai-gpt4o-parallel-tool-calls-empty-args.sse": {
    toolCalls: [
      ["call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", {}],
      ["call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", {}],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [364, 40, 0, 404],
  },
  "openai-gpt4o-parallel-tool-calls.sse": {
    toolCalls: [
      ["call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", add],
      ["call_fBSgA47J5VeONggizTIvl7AH", "multiply", add],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [106, 50, 0, 156],
  },
  "openai-gpt5-simple-text-usage.sse": {
    text: "Olá!",
    stopReason: "stop",
    rawStopReason: "stop",
    usage: [19, 75, 0, 94],
  },
  "openrouter-claude-parallel-tool-calls.sse": {
    toolCalls: [
      ["toolu_bdrk_01L6Xsux1sqgXSsd2xi64poF", "add", add],
      ["toolu_bdrk_014pCKe2FHbyMZerLY1JxG4a", "multiply", add],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [685, 120, 0, 805],
  },
  "openrouter-kimi-reasoning-tool-call.sse": {
    thinking: {
      start: " The user is asking for the weather in Florence, Italy. I have a `weather` function that takes a `lo",
      length: 268,
    },
    toolCalls: [["functions.weather:0", "weather", { location: "Florence,Italy" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [69, 87, 0, 156],
  },
  "openrouter-minimax-error-in-chunk.sse": {
    thinking: "We need to respond to a greeting. The user",
    stopReason: "error",
    rawStopReason: "length",
    error: "Token limit reached",
    usage: [43, 10, 0, 53],
  },
  "snowflake-cortex-claude-reasoning-no-finish-reason.sse": {
    thinking: "15 * 27 = 405",
    text: "15 × 27 = **405**\n\nHere's the breakdown:\n- 15 × 20 = 300\n- 15 × 7 = 105\n- 300 + 105 = **405**",
    stopReason: "stop",
    usage: [45, 73, 0, 118],
  },
  "vercel-gateway-claude-reasoning-tool-call.sse": {
    thinking: {
      start: "The user is asking for weather information for Florence, Italy. I have access to a weather function ",
      length: 257,
    },
    thinkingSignature: "EqoDCkYICxgCKkBZgA2aLmZQDmRH4RVCT4iXR95b6oYoMjp4e2kPdf2Po5wKmOD2b4fyCcDgesqaf1am",
    toolCalls: [["toolu_01BSgre5nzVkzeu74htYGhf9", "weather", { location: "Florence, Italy" }]],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [424, 111, 0, 535],
  },
  "vllm-crusoe-llama33-text.sse": {
    text: "1, 2, 3, 4, 5",
    stopReason: "stop",
    rawStopReason: "stop",
    usage: [46, 14, 0, 60],
  },
  "xai-grokcodefast-reasoning-parallel-tool-calls.sse": {
    thinking: {
      start: 'The user asked to "Add and multiply the number 2 and 3". The system prompt says: "Always use both ad',
      length: 134,
    },
    toolCalls: [
      ["call_47876210", "add", add],
      ["call_97132951", "multiply", add],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    // prompt 466 (192 cached); total 800 counts 266 reasoning tokens outside completion_tokens (68)
    usage: [274, 334, 192, 800],
  },
  "zai-glm47flash-reasoning-parallel-tool-calls.sse": {
    text: "I'll both add and multiply the numbers 2 and 3 for you.",
    thinking: {
      start: "The user wants me to both add and multiply the numbers 2 and 3. I need to use both the add and multi",
      length: 224,
    },
    toolCalls: [
      ["call_4f8cb52342424eb9bbc1b20e", "add", add],
      ["call_0d06add371834452b339ffdb", "multiply", add],
    ],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage: [232, 112, 43, 387],
  },
};

let server: LocalServer;
beforeAll(async () => {
  server = await startReplayServer("openai-completions");
});
afterAll(() => server.close());

const replay = (fixture: string, split: string) =>
  run(
    createTestModel("openai-completions", `${server.url}/v1`, {
      reasoning: true,
      cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
    }),
    { headers: replayHeaders(fixture, split) },
  );

function assertExpected(message: AssistantMessage, expected: Expected): void {
  const text = message.content.filter((block) => block.type === "text").map((block) => block.text);
  expect(text.join("")).toBe(expected.text ?? "");
  const thinking = message.content.filter((block) => block.type === "thinking");
  const thinkingText = thinking.map((block) => block.thinking).join("");
  if (typeof expected.thinking === "object") {
    expect(thinkingText.slice(0, 100)).toBe(expected.thinking.start);
    expect(thinkingText.length).toBe(expected.thinking.length);
  } else {
    expect(thinkingText).toBe(expected.thinking ?? "");
  }
  if (expected.thinkingSignature)
    expect(thinking.at(-1)?.signature).toMatch(new RegExp(`^${expected.thinkingSignature}`));
  const calls = message.content.filter((block) => block.type === "toolCall");
  expect(calls.map((call) => [call.id, call.name, call.arguments])).toEqual(expected.toolCalls ?? []);
  for (const call of calls) expect(call.rawArguments).toBeUndefined();
  expect(message.stopReason).toBe(expected.stopReason);
  expect(message.rawStopReason).toBe(expected.rawStopReason);
  const [input, output, cacheRead, total] = expected.usage ?? [0, 0, 0, 0];
  expect(message.usage).toMatchObject({ input, output, cacheRead, cacheWrite: 0, totalTokens: total });
  const cost = (input * 1 + output * 2 + cacheRead * 0.5) / 1_000_000;
  expect(message.usage.cost.total).toBeCloseTo(cost, 12);
  if (expected.error) expect(message.errorMessage).toContain(expected.error);
  else expect(message.errorMessage).toBeUndefined();
}

describe("openai-completions replays every recorded stream", () => {
  it("covers every fixture file of the folder", async () => {
    const { readdirSync } = await import("node:fs");
    const { fixturesDir } = await import("./helpers/local-server.js");
    expect(readdirSync(`${fixturesDir}/openai-completions`).sort()).toEqual(Object.keys(expectations).sort());
  });

  for (const [fixture, expected] of Object.entries(expectations)) {
    it(`parses ${fixture} identically whole and cut into small chunks`, async () => {
      const whole = await replay(fixture, "whole");
      assertExpected(whole.message, expected);
      expect(whole.events[0]?.type).toBe("start");
      expect(whole.events.at(-1)?.type).toBe(expected.stopReason === "error" ? "error" : "done");
      await expectSameForEverySplit((split) => replay(fixture, split), whole, {
        splits: splitsFor("openai-completions", fixture, ["1", "42"]),
        sameEvents: true,
      });
    });
  }
});
