import { describe, expect, it } from "vitest";
import { createEventDeduper, eventEntryFields } from "./event-stream.js";

describe("createEventDeduper", () => {
  it("delivers each line of a run once, even when an entry is stored twice", () => {
    const reader = createEventDeduper();
    const first = eventEntryFields('{"type":"agent_start"}', "r1", 1);
    const second = eventEntryFields('{"type":"agent_end"}', "r1", 2);
    expect([first, first, second, second].map((fields) => reader.accept(fields))).toEqual([
      { type: "agent_start" },
      undefined,
      { type: "agent_end" },
      undefined,
    ]);
  });

  it("keeps the runs of two attempts apart, and entries without a sequence as they are", () => {
    const reader = createEventDeduper();
    expect(reader.accept(eventEntryFields('{"n":1}', "r1", 1))).toEqual({ n: 1 });
    expect(reader.accept(eventEntryFields('{"n":2}', "r2", 1))).toEqual({ n: 2 });
    expect(reader.accept(["event", '{"n":3}'])).toEqual({ n: 3 });
    expect(reader.accept(["event", '{"n":3}'])).toEqual({ n: 3 });
  });

  it("skips an entry whose line is not JSON without stopping", () => {
    const reader = createEventDeduper();
    expect(reader.accept(eventEntryFields("not json", "r1", 1))).toBeUndefined();
    expect(reader.accept(eventEntryFields("{}", "r1", 2))).toEqual({});
  });
});
