import { describe, expect, it } from "vitest";
import { formatFooter } from "../../src/modes/interactive/components/footer-view.js";
import { PendingQueueView } from "../../src/modes/interactive/components/pending-queue-view.js";
import { StreamingMarkdown } from "../../src/modes/interactive/components/streaming-markdown.js";
import { ToolCallView } from "../../src/modes/interactive/components/tool-call-view.js";
import { renderSessionHtml } from "../../src/modes/interactive/export-html.js";
import { stripAnsi } from "./capture-terminal.js";

const diff = [
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,3 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  " const c = 4;",
].join("\n");

function text(lines: string[]): string {
  return stripAnsi(lines.join("\n"));
}

describe("ToolCallView", () => {
  it("renders an edit as a coloured diff", () => {
    const view = new ToolCallView("call-1", "edit", { path: "src/app.ts" });
    view.setResult(
      { content: [{ type: "text", text: "Edited src/app.ts" }], details: { path: "src/app.ts", diff } },
      false,
    );
    const lines = view.render(80);
    expect(stripAnsi(lines[0] ?? "")).toBe("● edit src/app.ts");
    expect(lines.some((line) => line.includes("\x1b[31m-const b = 2;"))).toBe(true);
    expect(lines.some((line) => line.includes("\x1b[32m+const b = 3;"))).toBe(true);
    expect(lines.every((line) => stripAnsi(line).length <= 80)).toBe(true);
  });

  it("shows a running command's last lines, then its exit code", () => {
    const view = new ToolCallView("call-2", "bash", { command: "make" });
    const output = Array.from({ length: 20 }, (_, index) => `out ${index}`).join("\n");
    view.setPartialResult({ content: [{ type: "text", text: output }] });
    const live = text(view.render(80));
    expect(live).toContain("out 19");
    expect(live).not.toContain("out 10\n");
    view.setResult({ content: [{ type: "text", text: output }], details: { exitCode: 0, durationMs: 1200 } }, false);
    const done = text(view.render(80));
    expect(done).toContain("exit 0 · 1.2s");
    expect(done).toContain("10 more lines (Ctrl+O to expand)");
    view.setExpanded(true);
    expect(text(view.render(80))).toContain("out 0");
  });

  it("shows a read as its line range and an error in red", () => {
    const read = new ToolCallView("call-3", "read", { path: "notes.md", offset: 10, limit: 5 });
    read.setResult(
      { content: [{ type: "text", text: "…" }], details: { kind: "text", startLine: 10, endLine: 14, totalLines: 90 } },
      false,
    );
    expect(text(read.render(80))).toContain("● read notes.md:10-14\n  lines 10-14 of 90");
    const failed = new ToolCallView("call-4", "read", { path: "missing.md" });
    failed.setResult({ content: [{ type: "text", text: "File not found: missing.md" }] }, true);
    expect(failed.render(80).some((line) => line.includes("\x1b[31mFile not found"))).toBe(true);
  });

  it("renders escape sequences in tool output inert", () => {
    const view = new ToolCallView("call-5", "bash", { command: "cat evil" });
    view.setResult(
      { content: [{ type: "text", text: "x\x1b]52;c;Zm9v\x07\x1b[2Jy" }], details: { exitCode: 0 } },
      false,
    );
    const rendered = view.render(80).join("\n");
    expect(rendered).not.toContain("\x1b]52");
    expect(rendered).not.toContain("\x1b[2J");
    expect(stripAnsi(rendered)).toContain("x␛]52;c;Zm9v␇␛[2Jy");
  });
});

describe("an assistant message's code blocks", () => {
  it("draws a fenced diff with a clean border, its language as a tag, and coloured lines", () => {
    const markdown = new StreamingMarkdown(`Here is the change:\n\n\`\`\`diff\n${diff}\n\`\`\`\n\nDone.`);
    const lines = markdown.render(80);
    const plain = lines.map(stripAnsi);
    expect(plain.join("\n")).not.toContain("`");
    const top = plain.indexOf("─── diff");
    expect(top).toBeGreaterThan(0);
    expect(plain.slice(top + 1, top + 8)).toEqual(diff.split("\n").map((line) => `  ${line}`));
    expect(plain[top + 8]).toBe("───");
    expect(lines.some((line) => line.includes("\x1b[31m-const b = 2;"))).toBe(true);
    expect(lines.some((line) => line.includes("\x1b[32m+const b = 3;"))).toBe(true);
  });

  it("draws a block without a language between two plain rules", () => {
    const plain = new StreamingMarkdown("```\nmake test\n```").render(80).map(stripAnsi);
    expect(plain).toEqual(["───", "  make test", "───"]);
  });
});

describe("footer", () => {
  it("shows folder, session name, tokens, cache, cost, context use, model and thinking level", () => {
    const [where, usage] = formatFooter({
      cwd: "/home/ada/project",
      home: "/home/ada",
      sessionName: "refactor",
      stats: {
        userMessages: 1,
        assistantMessages: 1,
        toolCalls: 0,
        toolResults: 0,
        tokens: { input: 12_345, output: 678, cacheRead: 2000, cacheWrite: 0, total: 15_023 },
        cost: 0.0421,
        contextTokens: 64_000,
      },
      contextWindow: 128_000,
      model: "openai/gpt-4o",
      thinkingLevel: "medium",
    });
    expect(where).toBe("~/project · refactor");
    expect(usage).toBe("↑12k ↓678 R2.0k W0 $0.042 50.0%/128k  openai/gpt-4o · thinking medium");
  });
});

describe("PendingQueueView", () => {
  it("lists the steering and follow-up messages the session says wait", () => {
    const view = new PendingQueueView();
    expect(view.render(80)).toEqual([]);
    view.set([
      { kind: "steer", text: "use tabs" },
      { kind: "followUp", text: "then run the tests" },
    ]);
    expect(text(view.render(80))).toBe("  ⋯ steer (pending): use tabs\n  ⋯ follow-up (pending): then run the tests");
    view.set([{ kind: "followUp", text: "then run the tests" }]);
    expect(text(view.render(80))).toBe("  ⋯ follow-up (pending): then run the tests");
  });
});

describe("HTML export", () => {
  it("escapes everything the model wrote", () => {
    const html = renderSessionHtml({
      title: "<b>t</b>",
      model: "m",
      entries: [
        {
          type: "message",
          id: "00000001",
          parentId: null,
          timestamp: "2026-12-01T10:00:00.000Z",
          message: { role: "user", content: "<script>alert(1)</script>", timestamp: 0 },
        },
      ],
    });
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("<title>&lt;b&gt;t&lt;/b&gt;</title>");
  });
});
