import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../src/types.js";
import { fixturesDir, type LocalServer } from "./helpers/local-server.js";
import { expectSameForEverySplit, replayHeaders, splitsFor, startReplayServer } from "./helpers/replay.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

/** A long string as the README shows it: its beginning and its total length. */
type Long = { start: string; length: number };

/** What the fixtures README says the final message is, in gyre's terms. */
type Expected = {
  text?: string | Long;
  thinking?: string | Long;
  /** The reasoning item kept in the thinking signature carries `encrypted_content`. */
  encrypted?: boolean;
  toolCalls?: [id: string, name: string, args: Record<string, unknown>][];
  /** Content block types in order. */
  blocks: AssistantMessage["content"][number]["type"][];
  stopReason: AssistantMessage["stopReason"];
  /** input = input_tokens − cached, output = output_tokens (incl. reasoning), cacheRead = cached, total. */
  usage?: [input: number, output: number, cacheRead: number, total: number];
  error?: string;
};

const add = { a: 2, b: 3 };
const expectations: Record<string, Expected> = {
  "azure-gpt5mini-reasoning-function-call.sse": {
    thinking: "",
    toolCalls: [["call_zLPcxu60T5jzGjuiRIvlkoSt", "weather", { location: "Florence, Italy" }]],
    blocks: ["thinking", "toolCall"],
    stopReason: "toolUse",
    usage: [63, 101, 0, 164],
  },
  "deepseek-responses-reasoning-function-call.sse": {
    thinking: "The user asks about temperature in Tokyo. I'll call the tool.",
    toolCalls: [["call_00_xjY8Z2BvSlzgEmmw0DtH0464", "get_temperature", { city: "Tokyo" }]],
    blocks: ["thinking", "toolCall"],
    stopReason: "toolUse",
    usage: [110, 59, 256, 425],
  },
  "github-copilot-id-rotation.jsonl": {
    thinking: "**Counting character occurrences**",
    text: "There are **3** letter **“r”**s in **“strawberry.”**\n\nBreakdown: **s t r a w b e r r y**  \nYou can see **r** at positions **3, 8, and 9**.",
    blocks: ["thinking", "text"],
    stopReason: "stop",
    usage: [19, 105, 0, 124],
  },
  "lmstudio-reasoning-text-function-call.jsonl": {
    thinking: {
      start: "The user is asking for the weather in San Francisco. I have a weather function available that takes ",
      length: 242,
    },
    text: "I'll get the current weather information for San Francisco for you.",
    toolCalls: [["call_2025306790300011", "weather", { location: "San Francisco" }]],
    blocks: ["thinking", "text", "toolCall"],
    stopReason: "toolUse",
    usage: [180, 61, 2, 243],
  },
  "openai-background-resume-starting-after.sse": {
    text: "2 + 2 equals 4.",
    blocks: ["text"],
    stopReason: "stop",
    usage: [15, 9, 0, 24],
  },
  "openai-codex-step1-reasoning-encrypted-function-call.jsonl": {
    thinking: {
      start: "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3",
      length: 163,
    },
    encrypted: true,
    toolCalls: [["call_AB6AaRZ1FYZB2RwS6A5vbdqn", "calculator", { a: 12, b: 7, op: "add" }]],
    blocks: ["thinking", "toolCall"],
    stopReason: "toolUse",
    usage: [134, 28, 0, 162],
  },
  "openai-codex-step4-text-after-tools.jsonl": {
    text: "The final result is **570**.",
    blocks: ["text"],
    stopReason: "stop",
    usage: [299, 12, 0, 311],
  },
  "openai-error-insufficient-quota.jsonl": {
    blocks: [],
    stopReason: "error",
    error: "You exceeded your current quota, please check your plan and billing details.",
  },
  "openai-gpt4o-parallel-function-calls.sse": {
    toolCalls: [
      ["call_NnEvpiwdL8XrZ6F3T9VJyVw7", "add", add],
      ["call_TQ8336oa6YnuT2leYzRDBBLz", "multiply", add],
    ],
    blocks: ["toolCall", "toolCall"],
    stopReason: "toolUse",
    usage: [104, 51, 0, 155],
  },
  "openai-gpt5-reasoning-summary-function-call.sse": {
    thinking: {
      start: "**Getting weather info**\n\nI need to respond to the user's question about the weather in Florence, It",
      length: 424,
    },
    encrypted: true,
    toolCalls: [["call_zgUaIBRPTwxxOusyyKw5NVMH", "weather", { location: "Florence, Italy" }]],
    blocks: ["thinking", "toolCall"],
    stopReason: "toolUse",
    usage: [63, 121, 0, 184],
  },
  "openai-gpt5-reasoning-summary-text.sse": {
    thinking: {
      start: "**Finalizing the response**\n\nI can mention the time of day, but since that wasn't provided, I'll jus",
      length: 417,
    },
    encrypted: true,
    text: "Right now in Florence, Italy, it’s about 40°C (104°F). Would you like a forecast or details like wind and humidity?",
    blocks: ["thinking", "text"],
    stopReason: "stop",
    usage: [92, 456, 0, 548],
  },
  "openai-phase-text-then-function-call.sse": {
    thinking: "",
    encrypted: true,
    text: "I’ll check the capital lookup tool for “PotatoLand.”",
    toolCalls: [["call_LabG58Uhrq9kZvR52BYKjToD", "get_capital", { country: "PotatoLand" }]],
    blocks: ["thinking", "text", "toolCall"],
    stopReason: "toolUse",
    usage: [63, 69, 0, 132],
  },
  "openai-web-search-call.sse": {
    text: {
      start:
        "Here is the most recent and reliable official estimate for the population of Tokyo:\n\nAs of **May 1, 2026**, the **Tokyo Metropolitan Government** reports that the total population of Tokyo (the entire prefecture) is **14,328,115** people. (",
      length: 631,
    },
    // The web_search_call item: a server tool call and its result, then the cited answer.
    blocks: ["serverToolCall", "serverToolResult", "text"],
    stopReason: "stop",
    usage: [17407, 164, 0, 17571],
  },
  "openrouter-responses-reasoning-with-done-sentinel.sse": {
    thinking: 'The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.',
    text: "4",
    blocks: ["thinking", "text"],
    stopReason: "stop",
    usage: [78, 37, 0, 115],
  },
  "xai-responses-reasoning-text.jsonl": {
    thinking: {
      start: 'First, the question is: "What is specifically notable about the style of Sonoran food?" This seems l',
      length: 766,
    },
    text: {
      start:
        "### Overview of Sonoran Cuisine\nSonoran food originates from the Sonoran Desert region, spanning parts of northern Mexico (especially Sonora state) and southern Arizona. It's a rustic, resourceful style shaped by the arid environment, blend",
      length: 2849,
    },
    blocks: ["thinking", "text"],
    stopReason: "stop",
    usage: [24, 923, 192, 1139],
  },
};

let server: LocalServer;
beforeAll(async () => {
  server = await startReplayServer("openai-responses");
});
afterAll(() => server.close());

const replay = (fixture: string, split: string) =>
  run(
    createTestModel("openai-responses", `${server.url}/v1`, {
      reasoning: true,
      cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 },
    }),
    { headers: replayHeaders(fixture, split) },
  );

function expectLong(actual: string, expected: string | Long | undefined): void {
  if (typeof expected === "object") {
    expect(actual.slice(0, expected.start.length)).toBe(expected.start);
    expect(actual.length).toBe(expected.length);
  } else {
    expect(actual).toBe(expected ?? "");
  }
}

function assertExpected(message: AssistantMessage, expected: Expected): void {
  expect(message.content.map((block) => block.type)).toEqual(expected.blocks);
  expectLong(message.content.map((block) => (block.type === "text" ? block.text : "")).join(""), expected.text);
  const thinking = message.content.filter((block) => block.type === "thinking");
  expectLong(thinking.map((block) => block.thinking).join(""), expected.thinking);
  for (const block of thinking) {
    const item = JSON.parse(block.signature ?? "{}") as { type?: string; id?: string; encrypted_content?: string };
    expect(item.type).toBe("reasoning");
    expect(typeof item.id).toBe("string");
    expect(typeof item.encrypted_content === "string" && item.encrypted_content.length > 0).toBe(!!expected.encrypted);
  }
  const calls = message.content.filter((block) => block.type === "toolCall");
  expect(calls.map((call) => [call.id, call.name, call.arguments])).toEqual(expected.toolCalls ?? []);
  // The function_call item id (`fc_…` at OpenAI, a UUID at DeepSeek) is kept to send back.
  for (const call of calls) expect(call.signature).toMatch(/^(fc_|[0-9a-f-]{36}$)/);
  expect(message.stopReason).toBe(expected.stopReason);
  expect(message.rawStopReason).toBe(expected.stopReason === "error" ? undefined : "completed");
  const [input, output, cacheRead, total] = expected.usage ?? [0, 0, 0, 0];
  expect(message.usage).toMatchObject({ input, output, cacheRead, cacheWrite: 0, totalTokens: total });
  expect(message.usage.cost.total).toBeCloseTo((input * 1 + output * 2 + cacheRead * 0.5) / 1_000_000, 12);
  if (expected.error) expect(message.errorMessage).toContain(expected.error);
  else expect(message.errorMessage).toBeUndefined();
}

describe("openai-responses replays every recorded stream", () => {
  it("covers every fixture file of the folder", () => {
    expect(readdirSync(`${fixturesDir}/openai-responses`).sort()).toEqual(Object.keys(expectations).sort());
  });

  for (const [fixture, expected] of Object.entries(expectations)) {
    it(`parses ${fixture} identically whole and cut into small chunks`, async () => {
      const whole = await replay(fixture, "whole");
      assertExpected(whole.message, expected);
      expect(whole.events[0]?.type).toBe("start");
      expect(whole.events.at(-1)?.type).toBe(expected.stopReason === "error" ? "error" : "done");
      await expectSameForEverySplit((split) => replay(fixture, split), whole, {
        splits: splitsFor("openai-responses", fixture, ["3", "11"]),
        sameEvents: true,
      });
    });
  }
});
