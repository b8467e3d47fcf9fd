import { describe, expect, it } from "vitest";
import { FrameBudget } from "./frame-budget.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("FrameBudget", () => {
  it("draws a burst of streamed updates as one frame per interval", async () => {
    let frames = 0;
    const budget = new FrameBudget(() => frames++, 40);
    const until = performance.now() + 200;
    while (performance.now() < until) {
      budget.soon();
      await sleep(1);
    }
    await sleep(60);
    // About 200 / 40 frames; never one per update (there were close to 200).
    expect(frames).toBeGreaterThanOrEqual(3);
    expect(frames).toBeLessThanOrEqual(7);
  });

  it("draws at once on now() and drops the waiting streamed frame", async () => {
    let frames = 0;
    const budget = new FrameBudget(() => frames++, 40);
    budget.soon();
    expect(frames).toBe(1);
    budget.soon();
    expect(frames).toBe(1);
    budget.now();
    expect(frames).toBe(2);
    await sleep(60);
    expect(frames).toBe(2);
  });

  it("draws the first streamed update after a quiet spell without waiting", () => {
    let frames = 0;
    const budget = new FrameBudget(() => frames++, 1000);
    budget.soon();
    expect(frames).toBe(1);
    budget.cancel();
  });
});
