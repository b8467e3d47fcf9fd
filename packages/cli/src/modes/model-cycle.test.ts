import { getModels, type Model } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { resolveModelScope } from "./model-cycle.js";

const models: Model[] = [...getModels("openai"), ...getModels("anthropic")];
const keys = (scope: ReturnType<typeof resolveModelScope>) =>
  scope.map((item) => `${item.model.provider}/${item.model.id}`);

describe("--models patterns", () => {
  it("takes exact ids and provider/id in the order given, each once", () => {
    expect(keys(resolveModelScope(["gpt-4o-mini", "openai/gpt-4o", "gpt-4o"], models))).toEqual([
      "openai/gpt-4o-mini",
      "openai/gpt-4o",
    ]);
  });

  it("expands globs and substrings, and keeps a :level for its models", () => {
    const scope = resolveModelScope(["anthropic/*:high"], models);
    expect(scope.length).toBe(getModels("anthropic").length);
    expect(scope.every((item) => item.thinkingLevel === "high")).toBe(true);
    expect(keys(resolveModelScope(["4o-mi"], models))).toEqual(["openai/gpt-4o-mini"]);
  });

  it("refuses a pattern that matches nothing and an unknown level, saying what to do", () => {
    expect(() => resolveModelScope(["nope-*"], models)).toThrow(
      'No configured model matches "nope-*" in --models; run gyre --list-models to see them.',
    );
    expect(() => resolveModelScope(["gpt-4o:max"], models)).toThrow(
      /unknown thinking level; use off, low, medium or high/,
    );
  });
});
