import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { UsageReport } from "../../src/core/usage/usage-report.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { usageOf, writeSession } from "./session-fixtures.js";

/** Screenshots are kept with the test output, for a person to look at. */
const outputDir = fileURLToPath(new URL("../../../../test-output/", import.meta.url));

describe("gyre stats --html", () => {
  it("renders offline in Chromium, and its figures match --json", async () => {
    const { cwd, home } = await createWorkspace();
    const sessionsDir = join(home, "sessions");
    const start = Date.parse("2026-11-25T10:00:00Z");
    for (let day = 0; day < 5; day++)
      await writeSession({
        sessionsDir,
        cwd: day % 2 === 0 ? "/work/app" : "/work/site",
        calls: [
          {
            at: start + day * 86_400_000,
            model: "anthropic/claude-sonnet",
            usage: usageOf(1000 * (day + 1), 200, 4000 * day, 500, 0.1 * (day + 1)),
          },
          { at: start + day * 86_400_000 + 60_000, model: "openai/gpt-mini", usage: usageOf(300, 50, 100, 0, 0.01) },
        ],
      });
    const page = join(cwd, "usage.html");
    const run = await runCli(["stats", "--json", "--html", "usage.html"], { cwd, env: cliEnv(home) });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as UsageReport;
    expect(await readFile(page, "utf8")).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);

    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    try {
      const context = await browser.newContext({ offline: true, viewport: { width: 1000, height: 1400 } });
      const tab = await context.newPage();
      const requests: string[] = [];
      tab.on("request", (request) => requests.push(request.url()));
      await tab.goto(pathToFileURL(page).href);
      // biome-ignore lint/performance/useDomNodeTextContent: the figures as rendered on screen are what is checked
      const stat = (key: string) => tab.locator(`[data-stat="${key}"]`).innerText();
      expect(await stat("calls")).toBe(String(report.totals.calls));
      expect(await stat("input")).toBe(String(report.totals.input));
      expect(await stat("cacheRead")).toBe(String(report.totals.cacheRead));
      expect(await stat("cost")).toBe(`$${report.totals.cost.toFixed(2)}`);
      expect(await stat("cacheHitRatio")).toBe(`${(report.totals.cacheHitRatio * 100).toFixed(1)}%`);
      // Each day's bar carries the day's cost; they add up to the total.
      const bars = await tab.locator("#chart-cost rect").evaluateAll((rects) =>
        rects.map((rect) => ({
          label: rect.getAttribute("data-label"),
          value: Number(rect.getAttribute("data-value")),
          height: rect.getBoundingClientRect().height,
        })),
      );
      expect(bars.map((bar) => bar.label)).toEqual(report.byDay.map((day) => day.key));
      expect(bars.map((bar) => bar.value)).toEqual(report.byDay.map((day) => day.cost));
      expect(bars.every((bar) => bar.height > 0)).toBe(true);
      expect(bars[4]?.height).toBeGreaterThan(bars[0]?.height ?? Number.POSITIVE_INFINITY);
      expect(await tab.locator("#chart-tokens rect").count()).toBe(5 * 4);
      expect(await tab.locator("#chart-cache circle").count()).toBe(5);
      expect(await tab.locator("#by-model tbody tr").count()).toBe(2);
      expect(requests.filter((url) => !url.startsWith("file:"))).toEqual([]);
      await mkdir(outputDir, { recursive: true });
      const shot = await tab.screenshot({ path: join(outputDir, "gyre-stats.png"), fullPage: true });
      expect(shot.byteLength).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
