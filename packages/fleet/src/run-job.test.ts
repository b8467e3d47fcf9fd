import { describe, expect, it } from "vitest";
import { finalAnswerOf, holdsPrompt } from "./run-job.js";

const header = JSON.stringify({ type: "session", version: 3, id: "s", cwd: "/w" });
const line = (entry: object) => JSON.stringify(entry);
const modelChange = line({ type: "model_change", id: "a", provider: "openai", modelId: "gpt-4o" });
const user = line({ type: "message", id: "b", message: { role: "user", content: "tag-7" } });
const answer = line({
  type: "message",
  id: "c",
  message: { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "answer-7" }] },
});

describe("resuming a job from its journal", () => {
  it("holds the prompt only once a user message is written, whatever came before it", () => {
    expect(holdsPrompt([header])).toBe(false);
    // The worker died after the run's model change, before the prompt: start from the job's prompt.
    expect(holdsPrompt([header, modelChange])).toBe(false);
    expect(holdsPrompt([header, modelChange, "{not json"])).toBe(false);
    expect(holdsPrompt([header, modelChange, user])).toBe(true);
  });

  it("returns the final answer only when the journal ends in one", () => {
    expect(finalAnswerOf([header, modelChange, user])).toBeUndefined();
    expect(finalAnswerOf([header, modelChange, user, answer])).toBe("answer-7");
  });
});
