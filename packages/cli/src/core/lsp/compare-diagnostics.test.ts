import { describe, expect, it } from "vitest";
import { compareDiagnostics, describeEditDiagnostics } from "./compare-diagnostics.js";
import type { FileDiagnostic } from "./types.js";

const error = (line: number, message: string, code = "2322"): FileDiagnostic => ({
  line,
  column: 1,
  severity: "error",
  message,
  code,
});

describe("compareDiagnostics", () => {
  it("treats a diagnostic that moved lines as the same one", () => {
    const change = compareDiagnostics([error(3, "old")], [error(9, "old")]);
    expect(change).toEqual({ introduced: [], fixed: [], remaining: 1 });
  });

  it("pairs the nearest copy and reports a second copy of one message as new", () => {
    const change = compareDiagnostics([error(10, "same")], [error(2, "same"), error(11, "same")]);
    expect(change.introduced).toEqual([error(2, "same")]);
    expect(change.remaining).toBe(1);
  });

  it("tells the same message with another code or severity apart", () => {
    const warning: FileDiagnostic = { ...error(1, "x"), severity: "warning" };
    const change = compareDiagnostics([error(1, "x")], [warning, error(1, "x", "7006")]);
    expect(change.introduced).toHaveLength(2);
    expect(change.fixed).toEqual([error(1, "x")]);
  });
});

describe("describeEditDiagnostics", () => {
  it("lists new diagnostics as path:line:col severity message (code), the message on one line", () => {
    const after = { type: "diagnostics" as const, diagnostics: [error(4, "Type 'a' is\n  not 'b'.")] };
    const { text, introduced } = describeEditDiagnostics({ path: "src/x.ts", before: [], after, notes: [] });
    expect(text).toBe("Diagnostics introduced by this edit:\nsrc/x.ts:4:1 error Type 'a' is not 'b'. (2322)");
    expect(introduced).toBe(1);
  });

  it("says a time-out is not a clean file", () => {
    const { text } = describeEditDiagnostics({
      path: "a.ts",
      before: [],
      after: { type: "timeout", timeoutMs: 250 },
      notes: [],
    });
    expect(text).toContain("The language server did not answer within 250 ms.");
    expect(text).not.toContain("No new diagnostics");
  });

  it("lists everything, marked, when there was no baseline in time", () => {
    const after = { type: "diagnostics" as const, diagnostics: [error(1, "old")] };
    const { text } = describeEditDiagnostics({ path: "a.ts", before: undefined, after, notes: [] });
    expect(text).toContain("gave no diagnostics for the file before the edit in time");
    expect(text).toContain("a.ts:1:1 error old (2322)");
  });
});
