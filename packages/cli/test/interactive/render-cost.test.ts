import type { AgentMessage } from "@gyre/agent";
import type { AssistantMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/modes/interactive/layout.js";

/** Renders synchronously, skipping the 16 ms throttle (a private method of pi-tui's TUI). */
function renderNow(layout: Layout): void {
  (layout.tui as unknown as { doRender(): void }).doRender();
}

import { CaptureTerminal } from "./capture-terminal.js";

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage,
    stopReason: "stop",
    timestamp: 0,
  };
}

function history(count: number): AgentMessage[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? { role: "user" as const, content: `question ${index}`, timestamp: 0 }
      : assistant(`Answer ${index}\n\n- a\n- b\n\n\`\`\`ts\nconst x = ${index};\n\`\`\``),
  );
}

/** A layout with an empty header, drawing to `terminal`. */
function createLayout(terminal: CaptureTerminal): Layout {
  return new Layout(terminal, {
    version: "0",
    model: "faux",
    cwd: "/p",
    home: undefined,
    contextFiles: [],
    extensions: [],
  });
}

/** Streams a ~100 KB answer into a layout holding `count` messages; returns what the terminal got. */
function streamAnswer(count: number) {
  const terminal = new CaptureTerminal(100, 30);
  const layout = createLayout(terminal);
  const render = () => renderNow(layout);
  layout.chat.setMessages(history(count));
  layout.tui.start();
  render();
  const before = { bytes: terminal.bytes, frames: terminal.frames.length, fullRedraws: layout.tui.fullRedraws };
  const empty = { ...assistant(""), content: [] };
  layout.chat.handleEvent({ type: "message_start", message: empty });
  layout.chat.handleEvent({ type: "message_update", event: { type: "start", message: empty } });
  layout.chat.handleEvent({ type: "message_update", event: { type: "text_start", contentIndex: 0 } });
  const frameBytes: number[] = [];
  let text = "";
  for (let line = 0; line < 2000; line++) {
    const delta = `line ${line} of the answer, ${"x".repeat(30)}\n\n`;
    text += delta;
    layout.chat.handleEvent({ type: "message_update", event: { type: "text_delta", contentIndex: 0, delta } });
    // A frame per 10 deltas, as the 16 ms render throttle batches fast streams.
    if (line % 10 !== 9) continue;
    const start = terminal.bytes;
    render();
    frameBytes.push(terminal.bytes - start);
  }
  layout.chat.handleEvent({ type: "message_end", message: assistant(text) });
  render();
  layout.tui.stop();
  return {
    bytes: terminal.bytes - before.bytes,
    frames: terminal.frames.length - before.frames,
    fullRedraws: layout.tui.fullRedraws - before.fullRedraws,
    maxFrameBytes: Math.max(...frameBytes),
    answerBytes: text.length,
  };
}

describe("render cost", () => {
  it("writes the same bytes per frame for a 100 KB answer whatever the history length", () => {
    const short = streamAnswer(0);
    const long = streamAnswer(500);
    expect(short.answerBytes).toBeGreaterThan(90_000);
    // Differential: no full redraws while streaming, and frames never repaint the history.
    expect(long.fullRedraws).toBe(0);
    expect(long.bytes).toBe(short.bytes);
    expect(long.maxFrameBytes).toBeLessThan(6_000);
    expect(long.frames).toBe(short.frames);
  });

  it("streams a 200 KB write call in 20-character deltas in well under a second of CPU", () => {
    const terminal = new CaptureTerminal(100, 30);
    const layout = createLayout(terminal);
    layout.tui.start();
    const empty = { ...assistant(""), content: [] };
    const raw = JSON.stringify({ path: "src/big-file.ts", content: "const line = 1;\n".repeat(12_500) });
    const cpuBefore = process.cpuUsage();
    layout.chat.handleEvent({ type: "message_start", message: empty });
    const start = { type: "toolcall_start", contentIndex: 0, id: "call_big", name: "write" } as const;
    layout.chat.handleEvent({ type: "message_update", event: start });
    for (let at = 0, delta = 0; at < raw.length; at += 20, delta++) {
      const event = { type: "toolcall_delta", contentIndex: 0, delta: raw.slice(at, at + 20) } as const;
      layout.chat.handleEvent({ type: "message_update", event });
      // A frame per 50 deltas, as the 16 ms render throttle batches a fast stream.
      if (delta % 50 === 49) renderNow(layout);
    }
    renderNow(layout);
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const header = layout.tui.render(100).find((line) => line.includes("write"));
    layout.tui.stop();
    expect(raw.length).toBeGreaterThan(200_000);
    expect(header).toContain("src/big-file.ts");
    expect(cpuMs).toBeLessThan(700);
  });

  it("re-lays out for a new width and keeps every line within it", () => {
    const terminal = new CaptureTerminal(100, 30);
    const layout = createLayout(terminal);
    layout.chat.setMessages(history(10));
    layout.tui.start();
    renderNow(layout);
    terminal.resize(40, 30);
    renderNow(layout);
    expect(layout.tui.fullRedraws).toBe(2);
    const lines = layout.tui.render(40);
    expect(lines.every((line) => line.replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "").length <= 40)).toBe(true);
    layout.tui.stop();
  });
});
