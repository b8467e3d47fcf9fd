import { describe, expect, it } from "vitest";
import { parseFindings, renderFindings } from "./review-findings.js";

describe("parseFindings", () => {
  it("reads a fenced JSON block among prose, with the shape's fields", () => {
    const answer =
      'I looked.\n```json\n{"summary": "One bug.", "findings": [{"file": "a.ts", "line": 3, "severity": "HIGH", "title": "off by one", "explanation": "skips the last", "fix": "use <="}]}\n```\nDone.';
    expect(parseFindings(answer)).toEqual({
      summary: "One bug.",
      findings: [
        { file: "a.ts", line: 3, severity: "high", title: "off by one", explanation: "skips the last", fix: "use <=" },
      ],
    });
  });

  it("tolerates a bare array, other field names, a bad line or severity, and drops entries without file or title", () => {
    const answer = `Findings: [{"path": "b.ts", "line": "7", "severity": "critical", "message": "leak", "suggestion": "close it"}, {"file": "c.ts"}, {"line": 0, "file": "d.ts", "title": "x", "severity": "low"}]`;
    expect(parseFindings(answer).findings).toEqual([
      { file: "b.ts", line: 7, severity: "medium", title: "leak", fix: "close it" },
      { file: "d.ts", severity: "low", title: "x" },
    ]);
  });

  it("keeps an answer without a findings object as free text", () => {
    expect(parseFindings("Looks fine to me {not json}")).toEqual({ findings: [], text: "Looks fine to me {not json}" });
    expect(parseFindings("")).toEqual({ findings: [] });
  });
});

describe("renderFindings", () => {
  it("lists the most severe first, at file:line, with the fix, and counts them", () => {
    const text = renderFindings({
      findings: [
        { file: "a.ts", severity: "low", title: "naming" },
        { file: "b.ts", line: 9, severity: "high", title: "crash", fix: "check for null" },
      ],
    });
    expect(text).toBe("b.ts:9 high: crash\n    fix: check for null\n\na.ts low: naming\n\n2 findings.");
    expect(renderFindings({ findings: [] })).toBe("No findings.");
  });
});
