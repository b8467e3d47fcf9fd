import { createFauxModel } from "@gyre/ai/testing";
import { describe, expect, test } from "vitest";
import { createRepetitionGuard, findRepeatingTail } from "../src/repetition-guard.js";
import { checkInvariants, collect } from "./helpers.js";

const sentence = "I will now check the file again to be sure. ";

describe("findRepeatingTail", () => {
  test("finds the passage's length and how far the loop reaches back", () => {
    const text = `Intro that differs. ${sentence.repeat(300)}`;
    // ". " before the loop matches the passage's end too: the loop reaches two characters further back.
    expect(findRepeatingTail(text, 8000, 8)).toEqual({ period: sentence.length, length: sentence.length * 300 + 2 });
  });

  test("ignores a tail that repeats too few times or over too little text", () => {
    expect(findRepeatingTail(`x${sentence.repeat(7)}`, 100, 8)).toBeUndefined();
    expect(findRepeatingTail(sentence.repeat(50), 8000, 8)).toBeUndefined();
  });

  test("does not stop long varied output: numbered lines, a table, code", () => {
    const guard = createRepetitionGuard();
    const lines = Array.from({ length: 4000 }, (_, index) => `| ${index} | value ${index * 7} | ok |\n`);
    const code = Array.from({ length: 1500 }, (_, index) => `  const item${index} = items[${index}];\n`);
    for (const line of [...lines, ...code]) expect(guard.push(line)).toBeUndefined();
  });
});

describe("a model that loops", () => {
  test("is stopped after a few KB with a sentence instead of streaming 95 KB", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: sentence.repeat(2200) }] }]);
    const outcome = await collect({
      model: faux.model,
      context: { messages: [], tools: [] },
      prompts: [{ role: "user", content: "go", timestamp: 1 }],
    });
    checkInvariants(outcome.events, outcome.result);
    expect(outcome.result.reason).toBe("error");
    const message = outcome.result.messages.at(-1);
    expect(message).toMatchObject({ role: "assistant", stopReason: "error" });
    const { errorMessage } = message as { errorMessage: string };
    expect(errorMessage).toMatch(
      /^The model repeated the same 44-character passage \d+ times \(\d+ KB of \d+ KB\) and was stopped: ".*check the file again.*"\. Ask again/,
    );
    const streamed = outcome.events
      .filter((event) => event.type === "message_update")
      .map((event) => (event.event.type === "text_delta" ? event.event.delta : ""))
      .join("");
    expect(streamed.length).toBeLessThan(16 * 1024);
  });

  test("is left alone when the guard is off", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: sentence.repeat(400) }] }]);
    const outcome = await collect({
      model: faux.model,
      context: { messages: [], tools: [] },
      prompts: [{ role: "user", content: "go", timestamp: 1 }],
      repetitionGuard: false,
    });
    expect(outcome.result.reason).toBe("stop");
  });
});
