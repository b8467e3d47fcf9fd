import { writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir } from "../../test/tools/helpers.js";
import { checkOutput, describeOutputProblems, loadOutputSchema } from "./output-schema.js";

const schema = {
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] }, count: { type: "integer" } },
  required: ["verdict", "count"],
  additionalProperties: false,
};

describe("output schema", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());

  it("accepts a matching answer, bare or in one json fence", async () => {
    expect(await checkOutput(schema, '{"verdict":"pass","count":3}')).toEqual({
      ok: true,
      value: { verdict: "pass", count: 3 },
    });
    expect(await checkOutput(schema, '```json\n{"verdict":"fail","count":0}\n```')).toEqual({
      ok: true,
      value: { verdict: "fail", count: 0 },
    });
    expect(await checkOutput({ type: "array", items: { type: "string" } }, '["a"]')).toEqual({
      ok: true,
      value: ["a"],
    });
  });

  it("lists each problem with its path, and says when the answer is not JSON at all", async () => {
    const wrong = await checkOutput(schema, '{"verdict":"maybe","extra":1}');
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.problems).toEqual([
      '/count: missing required property "count"',
      '/extra: unknown property "extra" (the schema allows no other properties)',
      '/verdict: must be one of "pass", "fail"',
    ]);
    expect(await checkOutput(schema, "The verdict is pass.")).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^the answer is not JSON/)],
    });
    expect(describeOutputProblems(["/a: x"])).toBe(
      "Your final answer does not match the required JSON Schema:\n- /a: x\nReply with only the corrected JSON value.",
    );
  });

  it("refuses a schema file that is missing, not JSON, or not an object, naming the file", async () => {
    const bad = nodePath.join(dir, "bad.json");
    await writeFile(bad, "{nope");
    await expect(loadOutputSchema(bad)).rejects.toThrow(/bad\.json is not valid JSON/);
    await writeFile(bad, "[1]");
    await expect(loadOutputSchema(bad)).rejects.toThrow(/must be a JSON Schema object/);
    await expect(loadOutputSchema(nodePath.join(dir, "missing.json"))).rejects.toThrow(
      /Cannot read the output schema .*ENOENT/,
    );
    await writeFile(bad, JSON.stringify(schema));
    expect(await loadOutputSchema(bad)).toEqual(schema);
  });
});
