import { describe, expect, it } from "vitest";
import { isThinkingLevel, THINKING_LEVELS } from "./index.js";

describe("thinking levels", () => {
  it("lists the levels weakest first and recognises only those", () => {
    expect(THINKING_LEVELS).toEqual(["off", "low", "medium", "high"]);
    for (const level of THINKING_LEVELS) expect(isThinkingLevel(level)).toBe(true);
    for (const value of ["minimal", "HIGH", "", 1, undefined, null]) expect(isThinkingLevel(value)).toBe(false);
  });
});
