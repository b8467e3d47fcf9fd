import { describe, expect, it } from "vitest";
import { FinishNotifier, type FinishNotifierOptions } from "./finish-notifier.js";

function notifier(options: Partial<FinishNotifierOptions>) {
  const written: string[] = [];
  const instance = new FinishNotifier({
    channel: undefined,
    afterMs: 1000,
    write: (data) => written.push(data),
    ...options,
  });
  return { instance, written };
}

describe("the finish notification", () => {
  it("asks for focus reports and turns them off again, unless notifications are off", () => {
    const on = notifier({ channel: "bell" });
    on.instance.start();
    on.instance.stop();
    expect(on.written).toEqual(["\x1b[?1004h", "\x1b[?1004l"]);
    const off = notifier({ channel: "off" });
    off.instance.start();
    expect(off.written).toEqual([]);
  });

  it("sends the configured channel after a long run while focus is unknown or lost, never while focused", () => {
    const { instance, written } = notifier({ channel: "osc777" });
    expect(instance.runEnded(500, "short")).toBe(false);
    expect(instance.runEnded(1500, "long\x07run")).toBe(true);
    expect(written.pop()).toBe("\x1b]777;notify;gyre;long run\x07");
    expect(instance.handleInput("\x1b[I")).toBe(true);
    expect(instance.runEnded(1500, "while focused")).toBe(false);
    expect(instance.handleInput("\x1b[O")).toBe(true);
    expect(instance.runEnded(1500, "away")).toBe(true);
    expect(written.pop()).toBe("\x1b]777;notify;gyre;away\x07");
    expect(instance.handleInput("x")).toBe(false);
  });

  it("rings the bell unconfigured only when the terminal said it lost focus", () => {
    const { instance, written } = notifier({});
    expect(instance.runEnded(5000, "done")).toBe(false);
    instance.handleInput("\x1b[O");
    expect(instance.runEnded(5000, "done")).toBe(true);
    expect(written).toEqual(["\x07"]);
  });

  it("writes OSC 9 and wraps OSC for tmux's passthrough", () => {
    const plain = notifier({ channel: "osc9" });
    plain.instance.runEnded(2000, "done");
    expect(plain.written).toEqual(["\x1b]9;done\x07"]);
    const tmux = notifier({ channel: "osc9", insideTmux: true });
    tmux.instance.runEnded(2000, "done");
    expect(tmux.written).toEqual(["\x1bPtmux;\x1b\x1b]9;done\x07\x1b\\"]);
  });
});
