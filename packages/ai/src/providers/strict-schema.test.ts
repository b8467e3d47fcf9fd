import { describe, expect, it } from "vitest";
import { makeNullable, removeNullOptionals, toStrictSchema } from "./strict-schema.js";

describe("toStrictSchema", () => {
  it("requires every property, makes optional ones nullable and closes objects, recursively", () => {
    const schema = {
      type: "object",
      description: "args",
      properties: {
        path: { type: "string" },
        mode: { type: "string", enum: ["r", "w"] },
        tags: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        ref: { $ref: "#/$defs/Ref", description: "a ref" },
      },
      required: ["path", "tags"],
      $defs: { Ref: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } },
    };
    const before = structuredClone(schema);
    expect(toStrictSchema(schema)).toEqual({
      type: "object",
      description: "args",
      properties: {
        path: { type: "string" },
        mode: { type: ["string", "null"], enum: ["r", "w", null] },
        tags: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: ["string", "null"] } },
            required: ["name"],
            additionalProperties: false,
          },
        },
        ref: { anyOf: [{ $ref: "#/$defs/Ref" }, { type: "null" }], description: "a ref" },
      },
      required: ["path", "mode", "tags", "ref"],
      additionalProperties: false,
      $defs: {
        Ref: { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false },
      },
    });
    expect(schema).toEqual(before);
  });

  it("handles anyOf branches and objects without properties", () => {
    expect(
      toStrictSchema({ anyOf: [{ type: "object", properties: { a: { type: "number" } } }, { type: "string" }] }),
    ).toEqual({
      anyOf: [
        {
          type: "object",
          properties: { a: { type: ["number", "null"] } },
          required: ["a"],
          additionalProperties: false,
        },
        { type: "string" },
      ],
    });
    expect(toStrictSchema({ type: "object" })).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it("leaves schemas that already accept null alone", () => {
    const nullable = { type: ["string", "null"] };
    expect(makeNullable(nullable)).toBe(nullable);
    const union = { anyOf: [{ type: "string" }, { type: "null" }] };
    expect(makeNullable(union)).toBe(union);
  });
});

describe("removeNullOptionals", () => {
  const schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      limit: { type: "number" },
      note: { type: ["string", "null"] },
      items: { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
    },
    required: ["path"],
  };

  it("drops nulls of optional properties, keeps required and nullable ones, recursing into arrays", () => {
    expect(
      removeNullOptionals({ path: null, limit: null, note: null, items: [{ x: null }, { x: 1 }], extra: null }, schema),
    ).toEqual({ path: null, note: null, items: [{}, { x: 1 }], extra: null });
  });

  it("returns non-object values unchanged", () => {
    expect(removeNullOptionals("text", schema)).toBe("text");
    expect(removeNullOptionals(null, schema)).toBe(null);
  });
});
