import { describe, expect, it } from "vitest";
import { JsonArrayReader } from "./json-array-reader.js";

const feedAll = (chunks: string[]) => {
  const reader = new JsonArrayReader();
  const out: unknown[] = [];
  for (const chunk of chunks) out.push(...reader.feed(chunk));
  reader.finish();
  return out;
};

describe("JsonArrayReader", () => {
  const body = '[{\n  "a": "x]},\\"{[",\n  "b": [1, {"c": null}]\n}\n,\r\n{"d": "é"}\n]';
  const expected = [{ a: 'x]},"{[', b: [1, { c: null }] }, { d: "é" }];

  it("returns each element once it is complete, whatever the chunk boundaries", () => {
    expect(feedAll([body])).toEqual(expected);
    expect(feedAll([...body])).toEqual(expected);
    for (let cut = 1; cut < body.length; cut++) {
      expect(feedAll([body.slice(0, cut), body.slice(cut)])).toEqual(expected);
    }
  });

  it("yields the first element before the rest of the array arrives", () => {
    const reader = new JsonArrayReader();
    expect(reader.feed('[{"a":1}\n,')).toEqual([{ a: 1 }]);
    expect(reader.feed('{"b":')).toEqual([]);
    expect(reader.feed("2}]")).toEqual([{ b: 2 }]);
    expect(() => reader.finish()).not.toThrow();
  });

  it("accepts a bare object body", () => {
    expect(feedAll(['{"error": {"message": "no"}}'])).toEqual([{ error: { message: "no" } }]);
  });

  it("rejects a body cut mid-element or before the closing bracket", () => {
    const cut = new JsonArrayReader();
    cut.feed('[{"a": 1');
    expect(() => cut.finish()).toThrow(/middle of its JSON array/);
    const open = new JsonArrayReader();
    open.feed('[{"a": 1}');
    expect(() => open.finish()).toThrow(/middle of its JSON array/);
  });

  it("rejects garbage between elements with a clear error", () => {
    expect(() => new JsonArrayReader().feed('[{"a":1} x')).toThrow(/unexpected "x"/);
  });
});
