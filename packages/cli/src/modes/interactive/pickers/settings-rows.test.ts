import { describe, expect, it } from "vitest";
import { createSettingRows } from "./settings-rows.js";

const rows = createSettingRows(["dark", "light"]);
const row = (id: string) => {
  const found = rows.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
};

describe("the /settings rows", () => {
  it("show the value gyre uses for a setting left out of the file, marked (default)", () => {
    expect(row("sandbox.mode").read({})).toBe("workspace-write (default)");
    expect(row("approval").read({})).toBe("ask (default)");
    expect(row("thinking").read({})).toBe("off (default)");
    expect(row("compaction.enabled").read({})).toBe("on (default)");
    expect(row("maxTurns").read({})).toBe("no limit (default)");
    expect(row("retry.maxRetries").read({})).toBe("3 (default)");
    expect(row("theme").read({})).toBe("dark");
  });

  it("show a value the file holds as it is, even when it equals the default", () => {
    expect(row("sandbox.mode").read({ sandbox: { mode: "workspace-write" } })).toBe("workspace-write");
    expect(row("approval").read({ approval: "deny" })).toBe("deny");
    expect(row("compaction.enabled").read({ compaction: { enabled: false } })).toBe("off");
  });

  it("remove the key when the default is chosen, and write any other value", () => {
    expect(row("sandbox.mode").values?.[0]).toBe("workspace-write (default)");
    expect(row("sandbox.mode").toChanges("workspace-write (default)")).toEqual([
      { key: "sandbox.mode", value: undefined },
    ]);
    expect(row("sandbox.mode").toChanges("read-only")).toEqual([{ key: "sandbox.mode", value: "read-only" }]);
    expect(row("compaction.enabled").toChanges("off")).toEqual([{ key: "compaction.enabled", value: false }]);
    expect(row("maxTurns").toChanges("no limit (default)")).toEqual([{ key: "maxTurns", value: undefined }]);
    expect(row("maxTurns").toChanges("40")).toEqual([{ key: "maxTurns", value: 40 }]);
  });
});
