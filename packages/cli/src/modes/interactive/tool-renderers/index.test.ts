import { describe, expect, it } from "vitest";
import { ToolCallView } from "../components/tool-call-view.js";

const plain = (lines: string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m/g, "");

function finished(name: string, args: Record<string, unknown>, text: string, details: unknown, expanded = false) {
  const view = new ToolCallView("call", name, args, expanded);
  view.setResult({ content: [{ type: "text", text }], details }, false);
  return plain(view.render(80));
}

describe("tool renderers", () => {
  it("shows an edit's text when its details carry no diff of the right type", () => {
    // An extension that replaces the built-in edit may return details of its own shape.
    const shown = finished("edit", { path: "a.ts" }, "Edited a.ts in my own way", { diff: 42 });
    expect(shown).toContain("Edited a.ts in my own way");
    expect(shown).not.toContain("42");
  });

  it("shows a write's content only when expanded", () => {
    const args = { path: "new.txt", content: "line one\nline two" };
    expect(finished("write", args, "Wrote 17 bytes to new.txt", {})).toContain("Wrote 17 bytes to new.txt");
    expect(finished("write", args, "Wrote 17 bytes to new.txt", {}, true)).toContain("line one\n  line two");
  });

  it("reports a timed-out command and ignores an exit code that is not a number", () => {
    expect(finished("bash", { command: "sleep 9" }, "", { timedOut: true, durationMs: 3000 })).toContain(
      "timed out · 3.0s",
    );
    expect(finished("bash", { command: "x" }, "", { exitCode: "0" })).toContain("done");
  });

  it("describes a read of an image, and an unknown tool by its arguments", () => {
    expect(finished("read", { path: "p.png" }, "", { kind: "image", mimeType: "image/png" })).toContain(
      "image (image/png)",
    );
    const other = finished("word_count", { text: "a b" }, "2 words", { words: 2 });
    expect(other).toContain('● word_count {"text":"a b"}');
    expect(other).toContain("2 words");
  });
});
