import { describe, expect, it } from "vitest";
import { createSseDecoder } from "./sse.js";

describe("createSseDecoder", () => {
  it("gives each event once it is complete, however the text is cut", () => {
    const text = 'event: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\n: comment\n\ndata: two\n\ndata: tail';
    for (const size of [1, 3, 7, text.length]) {
      const decoder = createSseDecoder();
      const events = [];
      for (let at = 0; at < text.length; at += size) events.push(...decoder.feed(text.slice(at, at + size)));
      // The last event has no blank line after it: only the end of the body completes it.
      expect(events).toEqual([
        { event: "a", data: '{"x":\n1}' },
        { event: undefined, data: "two" },
      ]);
      expect(decoder.end()).toEqual([{ event: undefined, data: "tail" }]);
    }
  });
});
