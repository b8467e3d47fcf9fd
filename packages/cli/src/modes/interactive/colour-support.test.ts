import { afterEach, describe, expect, it, vi } from "vitest";
import { colourEnabled } from "./colour-support.js";

describe("colourEnabled", () => {
  it("colours by default, not with NO_COLOR, and as FORCE_COLOR says when it is set", () => {
    expect(colourEnabled({})).toBe(true);
    expect(colourEnabled({ NO_COLOR: "1" })).toBe(false);
    expect(colourEnabled({ NO_COLOR: "" })).toBe(true);
    expect(colourEnabled({ NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: "0" })).toBe(false);
    expect(colourEnabled({ FORCE_COLOR: "false" })).toBe(false);
  });
});

describe("the interactive theme", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("writes no colour codes under NO_COLOR, in styles and in highlighted code, and keeps bold", async () => {
    vi.stubEnv("NO_COLOR", "1");
    vi.stubEnv("FORCE_COLOR", undefined);
    const { markdownTheme, style } = await import("./theme.js");
    expect(style.red("x")).toBe("x");
    expect(markdownTheme.highlightCode?.('const a = "b"; // c', "ts")).toEqual(['const a = "b"; // c']);
    expect(style.bold("x")).toBe("\x1b[1mx\x1b[22m");
  });

  it("colours without NO_COLOR", async () => {
    vi.stubEnv("NO_COLOR", undefined);
    vi.stubEnv("FORCE_COLOR", undefined);
    const { markdownTheme, style } = await import("./theme.js");
    expect(style.red("x")).toBe("\x1b[31mx\x1b[39m");
    expect(markdownTheme.highlightCode?.('"b"', "ts")).toEqual(['\x1b[32m"b"\x1b[39m']);
  });
});
