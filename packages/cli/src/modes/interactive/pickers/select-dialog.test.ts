import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { InputDialog, renderDialogTitle, SelectDialog } from "./select-dialog.js";

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

/** What pi-tui's differential renderer needs: one screen row per line, none wider than the screen. */
function expectScreenRows(lines: string[], width: number): void {
  for (const line of lines) {
    expect(line).not.toMatch(/[\n\r]/);
    expect(visibleWidth(line)).toBeLessThanOrEqual(width);
  }
}

describe("dialog titles", () => {
  // The MCP sampling question: title, the server's prompt, then a blank line and the request's size.
  const sampling = 'MCP server "everything" asks to use the model — a haiku\n\n(1 message, up to 100 tokens)';

  it("gives each line of a multi-line title a row of its own", () => {
    const dialog = new SelectDialog({
      title: sampling,
      items: [
        { value: "yes", label: "Yes" },
        { value: "no", label: "No" },
      ],
      onDone: () => {},
    });
    const lines = dialog.render(60);
    expectScreenRows(lines, 60);
    const text = lines.map(stripAnsi);
    expect(text.slice(1, 4)).toEqual([
      'MCP server "everything" asks to use the model — a haiku',
      "",
      "(1 message, up to 100 tokens)",
    ]);
    expect(text.some((line) => line.includes("Yes"))).toBe(true);

    const input = new InputDialog(`Why not?\n(sent to the model)`, () => {});
    expectScreenRows(input.render(30), 30);
    expect(input.render(30).map(stripAnsi).slice(1, 3)).toEqual(["Why not?", "(sent to the model)"]);
  });

  it("wraps a long title instead of cutting it, and caps a very long one", () => {
    const long = `Allow bash? ${"word ".repeat(40)}end`;
    const rows = renderDialogTitle(long, 40);
    expectScreenRows(rows, 40);
    expect(rows.length).toBeGreaterThan(1);
    expect(stripAnsi(rows.at(-1) ?? "")).toContain("end");

    const huge = renderDialogTitle(Array.from({ length: 100 }, (_, index) => `line ${index}`).join("\n"), 40);
    expect(huge).toHaveLength(20);
    expect(stripAnsi(huge.at(-1) ?? "")).toBe("… 81 more lines");
  });

  it("shows a server's escape sequences as visible characters", () => {
    const rows = renderDialogTitle("asks — \x1b]52;c;aGk=\x07 \x1b[2J", 80).map(stripAnsi);
    expect(rows.join("")).not.toContain("\x1b");
    expect(rows.join("")).toContain("␛]52;c;aGk=␇ ␛[2J");
  });
});
