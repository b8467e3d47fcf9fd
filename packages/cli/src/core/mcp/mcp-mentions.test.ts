import { describe, expect, it } from "vitest";
import { findMcpMentions } from "./mcp-mentions.js";

describe("findMcpMentions", () => {
  it("finds mentions of configured servers only, once each, without trailing punctuation", () => {
    const text = "see @docs:file:///a/b.md, then @docs:file:///a/b.md and @other:x://y (and mail@docs:z)";
    expect(findMcpMentions(text, ["docs"])).toEqual([{ server: "docs", uri: "file:///a/b.md" }]);
  });

  it("keeps a mention at the very start and URIs with query strings", () => {
    expect(findMcpMentions("@db:pg://t/users?limit=5 now", ["db"])).toEqual([
      { server: "db", uri: "pg://t/users?limit=5" },
    ]);
  });
});
