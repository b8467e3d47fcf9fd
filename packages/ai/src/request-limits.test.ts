import { describe, expect, it } from "vitest";
import { capRequestImages, uniqueToolsByName } from "./request-limits.js";
import type { Message } from "./types.js";

const image = (data: string) => ({ type: "image" as const, data, mimeType: "image/png" });
const result = (images: number, tag: string): Message => ({
  role: "toolResult",
  toolCallId: tag,
  toolName: "shot",
  content: Array.from({ length: images }, (_, index) => image(`${tag}${index}`)),
  isError: false,
  timestamp: 0,
});

describe("capRequestImages", () => {
  it("keeps the newest images within the count and replaces older ones with a notice", () => {
    const messages = [result(3, "old"), result(2, "new")];
    const capped = capRequestImages(messages, { maxImages: 3 });
    const kinds = capped.map((message) =>
      (message.content as { type: string; data?: string }[]).map((b) => b.data ?? b.type),
    );
    expect(kinds).toEqual([
      ["text", "text", "old2"],
      ["new0", "new1"],
    ]);
    expect(messages[0]?.content).toHaveLength(3);
    expect(JSON.stringify(capped[0])).toContain("an older image was left out of this request");
  });

  it("counts bytes too, and returns the same array when nothing had to go", () => {
    const messages = [result(2, "a")];
    expect(capRequestImages(messages)).toBe(messages);
    const capped = capRequestImages(messages, { maxImageBytes: 2 });
    expect(((capped[0]?.content ?? []) as { type: string }[]).map((block) => block.type)).toEqual(["text", "image"]);
  });
});

describe("uniqueToolsByName", () => {
  it("keeps the first tool of each name and names the duplicates", () => {
    const tools = [{ name: "a", n: 1 }, { name: "b" }, { name: "a", n: 2 }];
    expect(uniqueToolsByName(tools)).toEqual({ tools: [{ name: "a", n: 1 }, { name: "b" }], duplicates: ["a"] });
    const clean = [{ name: "x" }];
    expect(uniqueToolsByName(clean).tools).toBe(clean);
  });
});
