import type { AssistantMessage } from "@gyre/ai";
import { TUI } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { installLineResetCache } from "../../src/modes/interactive/fast-line-resets.js";
import { Layout } from "../../src/modes/interactive/layout.js";
import { CaptureTerminal } from "./capture-terminal.js";

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "faux",
  provider: "faux",
  model: "faux",
  usage,
  stopReason: "stop",
  timestamp: 0,
});

/** Streams an answer with typing, a resize and a notice in between; returns everything written. */
function session(options: { cached: boolean }): string {
  const terminal = new CaptureTerminal(80, 20);
  const layout = new Layout(terminal, {
    version: "0",
    model: "faux",
    cwd: "/p",
    home: undefined,
    contextFiles: [],
    extensions: [],
  });
  if (!options.cached) {
    // The instance properties shadow pi-tui's own methods; without them the plain renderer runs.
    const internals = layout.tui as unknown as Record<string, unknown>;
    delete internals.applyLineResets;
    delete internals.collectKittyImageIds;
  }
  const render = () => (layout.tui as unknown as { doRender(): void }).doRender();
  layout.chat.setMessages(
    Array.from({ length: 30 }, (_, index) =>
      index % 2 === 0 ? { role: "user" as const, content: `q ${index}`, timestamp: 0 } : assistant(`a **${index}**`),
    ),
  );
  layout.tui.start();
  render();
  const empty = { ...assistant(""), content: [] };
  layout.chat.handleEvent({ type: "message_start", message: empty });
  layout.chat.handleEvent({ type: "message_update", event: { type: "start", message: empty } });
  layout.chat.handleEvent({ type: "message_update", event: { type: "text_start", contentIndex: 0 } });
  for (let line = 0; line < 60; line++) {
    const delta = `line ${line} with *some* \`code\` ${"y".repeat(line % 50)}\n`;
    layout.chat.handleEvent({ type: "message_update", event: { type: "text_delta", contentIndex: 0, delta } });
    if (line === 20) layout.editor.setText("typed while streaming");
    if (line === 30) terminal.resize(50, 20);
    if (line === 40) layout.chat.addNotice("a notice");
    render();
  }
  layout.tui.stop();
  return terminal.writes.join("");
}

describe("line reset cache", () => {
  it("writes exactly what pi-tui's own renderer writes", () => {
    expect(session({ cached: true })).toBe(session({ cached: false }));
  });

  it("is installed on pi-tui's renderer", () => {
    expect(installLineResetCache(new TUI(new CaptureTerminal()))).toBe(true);
  });
});
