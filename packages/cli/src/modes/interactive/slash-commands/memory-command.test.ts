import { describe, expect, it } from "vitest";
import { parseMemoryInput } from "./memory-command.js";

describe("parseMemoryInput", () => {
  it("takes one line after a single #, and leaves headings and pasted documents to the model", () => {
    expect(parseMemoryInput("# use pnpm here")).toBe("use pnpm here");
    expect(parseMemoryInput("#no space")).toBe("no space");
    expect(parseMemoryInput("#")).toBe("");
    expect(parseMemoryInput("## a heading")).toBeUndefined();
    expect(parseMemoryInput("# Title\n\nA pasted document")).toBeUndefined();
    expect(parseMemoryInput("fix # later")).toBeUndefined();
  });
});
