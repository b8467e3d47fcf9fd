import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage } from "../src/types.js";
import { fixturesDir, type LocalServer } from "./helpers/local-server.js";
import { expectSameForEverySplit, replayHeaders, splitsFor, startReplayServer } from "./helpers/replay.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

type Long = string | { prefix: string; length: number };
type Call = { name: string; args: Record<string, unknown>; id?: string };
type Case = {
  file: string;
  thinking?: Long;
  text?: Long;
  calls?: Call[];
  /** Google Search grounding: a web_search call and its result follow the other blocks. */
  grounded?: boolean;
  /** Content indices that must carry a thought signature (all others must not). */
  signed: number[];
  finish: string;
  stopReason: AssistantMessage["stopReason"];
  /** usageMetadata as recorded: prompt, candidates, thoughts, toolUsePrompt, total. */
  usage: [number, number, number, number, number];
};

const cases: Case[] = [
  {
    file: "gemini25flash-json-array-thought-function-call.json",
    thinking: {
      prefix: "**Generating Pelican Names**\n\nOkay, I'm thinking I should use the `pelican_name_generator` tool to a",
      length: 236,
    },
    calls: [{ name: "pelican_name_generator", args: {} }],
    signed: [1],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [32, 12, 42, 0, 86],
  },
  {
    file: "gemini25flash-parallel-function-calls.sse",
    calls: [
      { name: "add", args: { b: 3, a: 2 } },
      { name: "multiply", args: { a: 2, b: 3 } },
    ],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [121, 36, 38, 0, 195],
  },
  {
    file: "gemini25flash-thought-summary-function-call.sse",
    thinking: {
      prefix: "**Determining the Weather Inquiry**\n\nI've pinpointed the user's intent: they want the weather condit",
      length: 327,
    },
    calls: [{ name: "weather", args: { location: "Florence, Italy" } }],
    signed: [1],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [54, 14, 62, 0, 130],
  },
  {
    file: "gemini25pro-google-search-grounding.sse",
    text: {
      prefix:
        "### Weather in San Francisco is Mild and Partly Cloudy Today\n\n**San Francisco, CA** - Today's weather in San Francisco is partly cloudy with temperatures ranging from the high 50s to the low 80s, according to various weather reports.\n\nAs of",
      length: 926,
    },
    grounded: true,
    signed: [],
    finish: "STOP",
    stopReason: "stop",
    usage: [17, 241, 412, 102, 772],
  },
  {
    file: "gemini25pro-thought-summary-text.sse",
    thinking: {
      prefix: "**Clarifying User Goals**\n\nI'm currently focused on defining the user's ultimate goal: ensuring thei",
      length: 1575,
    },
    text: {
      prefix:
        "This is a great question! Safely crossing the street is all about being aware and predictable. Here is a step-by-step guide that is widely taught for safety:\n\n### 1. Find a Safe Place to Cross\nThe best place is always at a designated **cros",
      length: 1938,
    },
    signed: [1],
    finish: "STOP",
    stopReason: "stop",
    usage: [34, 469, 787, 0, 1290],
  },
  {
    file: "gemini31pro-parallel-function-calls-with-ids.sse",
    calls: [
      { name: "add", args: { a: 2, b: 3 }, id: "8hd01vsf" },
      { name: "multiply", args: { b: 3, a: 2 }, id: "k0srpqrc" },
    ],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [157, 32, 438, 0, 627],
  },
  {
    file: "gemini31pro-text-thought-signature.sse",
    text: '"Hi" in Portuguese is **"Oi"** (pronounced like "oy"). \n\nYou can also use **"Olá"** (pronounced oh-LAH), which means "Hello".',
    signed: [0],
    finish: "STOP",
    stopReason: "stop",
    usage: [11, 39, 206, 0, 256],
  },
  {
    // The README counts 2 signatures; the one on the skipped executableCode part is not kept.
    file: "gemini3flash-code-execution.sse",
    text: "The result of $65465 - 6544 \\times 65464 - 6 + 1.02255$ is **-428,330,955.97745**.",
    signed: [0],
    finish: "STOP",
    stopReason: "stop",
    usage: [147, 108, 168, 360, 783],
  },
  {
    file: "gemini3flash-json-array-function-call.json",
    calls: [{ name: "multiply", args: { y: 3, x: 5 } }],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [60, 16, 32, 0, 108],
  },
  {
    file: "gemini3pro-function-call-empty-args.sse",
    calls: [{ name: "get_country", args: {} }],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [29, 10, 202, 0, 241],
  },
  {
    file: "gemma4-thought-parts-usage.jsonl",
    thinking: {
      prefix: '*   User input: "Reply with exactly: hello"\n    *   Constraint: The response must be "exactly: hello',
      length: 270,
    },
    text: "hello",
    signed: [],
    finish: "STOP",
    stopReason: "stop",
    usage: [6, 1, 76, 0, 83],
  },
  {
    file: "vertex-gemini25pro-parallel-function-calls.sse",
    calls: [
      { name: "add", args: { b: 3, a: 2 } },
      { name: "multiply", args: { a: 2, b: 3 } },
    ],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [57, 10, 69, 0, 136],
  },
  {
    file: "vertex-gemini31pro-partial-args-nested.jsonl",
    calls: [
      {
        name: "cookRecipe",
        args: {
          recipe: {
            ingredients: [
              { amount: "16 oz", name: "Lasagna noodles" },
              { amount: "1 lb", name: "Ground beef" },
              { amount: "15 oz", name: "Ricotta cheese" },
              { amount: "3 cups", name: "Mozzarella cheese" },
              { amount: "1/2 cup", name: "Parmesan cheese" },
              { amount: "24 oz", name: "Tomato sauce" },
              { amount: "1", name: "Egg" },
              { amount: "2 cloves", name: "Garlic" },
              { amount: "1 tsp", name: "Salt" },
              { amount: "1/2 tsp", name: "Pepper" },
            ],
            name: "Lasagna",
            steps: [
              "Preheat oven to 375°F (190°C).",
              "Cook lasagna noodles according to package directions, drain and set aside.",
              "Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",
              "In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",
              "In a 9x13 baking dish, spread a thin layer of meat sauce.",
              "Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",
              "Top with remaining mozzarella cheese.",
              "Cover with foil and bake for 25 minutes.",
              "Remove foil and bake for another 25 minutes until golden.",
              "Let stand for 15 minutes before serving.",
            ],
          },
        },
      },
    ],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [31, 684, 1026, 0, 1741],
  },
  {
    file: "vertex-gemini3flash-partial-args-array-no-terminal.jsonl",
    calls: [
      {
        name: "writeItems",
        args: {
          operations: [
            { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
            { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 },
          ],
        },
      },
    ],
    signed: [0],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [54, 74, 121, 0, 249],
  },
  {
    file: "vertex-gemini3flash-partial-args-sequential-calls.jsonl",
    thinking: {
      prefix: "**Processing User Requests**\n\nI've started by understanding the user's instructions. Currently, I'm ",
      length: 320,
    },
    calls: [
      { name: "read_theme", args: {} },
      { name: "read_screen", args: { id: "A" } },
      { name: "read_screen", args: { id: "B" } },
      { name: "read_screen", args: { id: "C" } },
    ],
    signed: [1],
    finish: "STOP",
    stopReason: "toolUse",
    usage: [249, 58, 183, 0, 490],
  },
];

let server: LocalServer;
beforeAll(async () => {
  server = await startReplayServer("google-gemini", ({ file, body }, response) => {
    if (!file.includes("error-429")) return false;
    response.writeHead(429, { "content-type": "application/json" });
    response.end(body);
    return true;
  });
});
afterAll(() => server.close());

const replay = (file: string, split: string) =>
  run(createTestModel("google-gemini", server.url), {
    apiKey: "g-key",
    headers: replayHeaders(file, split),
    retry: { maxRetries: 0 },
  });

function matchLong(value: string | undefined, want: Long): void {
  if (typeof want === "string") expect(value).toBe(want);
  else {
    expect(value?.slice(0, want.prefix.length)).toBe(want.prefix);
    expect(value?.length).toBe(want.length);
  }
}

describe("google-gemini replays every recorded stream", () => {
  it("covers every fixture file", () => {
    const files = readdirSync(`${fixturesDir}google-gemini`);
    const covered = [
      ...cases.map((entry) => entry.file),
      "gemini-prompt-blocked.jsonl",
      "gemini-error-429-resource-exhausted.json",
    ];
    expect(covered.sort()).toEqual(files.sort());
  });

  for (const entry of cases) {
    it(`parses ${entry.file} into the expected message, whatever the chunking`, async () => {
      const { message, events } = await replay(entry.file, "whole");
      const kinds = [
        ...(entry.thinking ? ["thinking"] : []),
        ...(entry.text ? ["text"] : []),
        ...(entry.calls ?? []).map(() => "toolCall"),
        ...(entry.grounded ? ["serverToolCall", "serverToolResult"] : []),
      ];
      expect(message.content.map((block) => block.type)).toEqual(kinds);
      const thinking = message.content.find((block) => block.type === "thinking");
      if (entry.thinking) matchLong(thinking?.type === "thinking" ? thinking.thinking : undefined, entry.thinking);
      const text = message.content.find((block) => block.type === "text");
      if (entry.text) matchLong(text?.type === "text" ? text.text : undefined, entry.text);
      const calls = message.content.filter((block) => block.type === "toolCall");
      expect(calls.map((call) => ({ name: call.name, args: call.arguments }))).toEqual(
        (entry.calls ?? []).map((call) => ({ name: call.name, args: call.args })),
      );
      for (const [index, call] of calls.entries()) {
        const id = entry.calls?.[index]?.id;
        if (id) expect(call.id).toBe(id);
        else expect(call.id).toMatch(/^gemini_call_/);
      }
      expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
      const signed = message.content.flatMap((block, index) =>
        (block as { signature?: string }).signature ? [index] : [],
      );
      expect(signed).toEqual(entry.signed);

      expect(message.stopReason).toBe(entry.stopReason);
      expect(message.rawStopReason).toBe(entry.finish);
      expect(message.errorMessage).toBeUndefined();
      const [prompt, candidates, thoughts, toolUse, total] = entry.usage;
      expect(message.usage).toMatchObject({
        input: prompt + toolUse,
        output: candidates + thoughts,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: total,
      });
      expect(message.responseId).toBeTruthy();
      expect(events.at(-1)?.type).toBe("done");

      await expectSameForEverySplit(
        (split) => replay(entry.file, split),
        { message, events },
        {
          splits: splitsFor("google-gemini", entry.file, ["1", "2", "3"]),
        },
      );
    });
  }

  it("ends a blocked prompt as an error naming the block reason, keeping usage", async () => {
    for (const split of ["whole", "bytes", "7"]) {
      const { message } = await replay("gemini-prompt-blocked.jsonl", split);
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toBe(
        "Google blocked the prompt (PROHIBITED_CONTENT); rephrase the request or remove the flagged content.",
      );
      expect(message.content).toEqual([]);
      expect(message.usage).toMatchObject({ input: 9, output: 0, totalTokens: 9 });
    }
  });

  it("surfaces Google's message from a 429 RESOURCE_EXHAUSTED body", async () => {
    const { message } = await replay("gemini-error-429-resource-exhausted.json", "whole");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Google API error 429: You exceeded your current quota, please check your plan.");
  });
});
