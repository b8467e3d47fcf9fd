import { describe, expect, it } from "vitest";
import { extractDocBlocks } from "./doc-blocks.mjs";

describe("extractDocBlocks", () => {
  it("takes ts, js and sh blocks with their annotations and leaves other fences out", () => {
    const markdown = [
      "```ts",
      "run();",
      "```",
      "<!-- doc-test: skip: needs a key -->",
      "```sh",
      "curl x",
      "```",
      "```json",
      "{}",
      "```",
      "<!-- doc-test: typecheck: a fragment -->",
      "```js",
      "x;",
      "```",
      "<!-- doc-test: skip -->",
      "```bash",
      "y",
      "```",
    ].join("\n");
    expect(extractDocBlocks(markdown, "a.md")).toEqual([
      { where: "a.md:1", language: "ts", code: "run();", action: "run" },
      { where: "a.md:5", language: "sh", code: "curl x", action: "skip", reason: "needs a key" },
      { where: "a.md:12", language: "js", code: "x;", action: "typecheck", reason: "a fragment" },
      { where: "a.md:16", language: "sh", code: "y", action: "unknown" },
    ]);
  });
});
