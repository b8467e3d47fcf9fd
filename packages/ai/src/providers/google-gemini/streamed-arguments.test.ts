import { describe, expect, it } from "vitest";
import { applyPartialArgument, parseJsonPath } from "./streamed-arguments.js";

describe("applyPartialArgument", () => {
  it("rebuilds nested objects and arrays, concatenating string pieces", () => {
    const args: Record<string, unknown> = {};
    applyPartialArgument(args, { jsonPath: "$.recipe.steps[0]", stringValue: "Preheat " });
    applyPartialArgument(args, { jsonPath: "$.recipe.steps[0]", stringValue: "oven." });
    applyPartialArgument(args, { jsonPath: "$.recipe.steps[0]", stringValue: "" });
    applyPartialArgument(args, { jsonPath: "$.recipe.items[1].price", numberValue: 0.3 });
    applyPartialArgument(args, { jsonPath: "$.recipe.items[0].ok", boolValue: false });
    applyPartialArgument(args, { jsonPath: "$['odd.key']", nullValue: null });
    applyPartialArgument(args, { jsonPath: "$.empty", stringValue: "" });
    expect(args).toEqual({
      recipe: { steps: ["Preheat oven."], items: [{ ok: false }, { price: 0.3 }] },
      "odd.key": null,
      empty: "",
    });
  });

  it("ignores fragments with no value or an unreadable path", () => {
    const args: Record<string, unknown> = {};
    applyPartialArgument(args, { jsonPath: "$.a" });
    applyPartialArgument(args, { jsonPath: "a.b", stringValue: "x" });
    applyPartialArgument(args, { jsonPath: "$.a[x]", stringValue: "x" });
    expect(args).toEqual({});
  });

  it("parses dotted, indexed and quoted path segments", () => {
    expect(parseJsonPath("$.a.b[2]['c.d'][\"e\"]")).toEqual(["a", "b", 2, "c.d", "e"]);
    expect(parseJsonPath("$")).toEqual([]);
  });
});
