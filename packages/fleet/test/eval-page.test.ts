/** The evaluation's results page, drawn in headless Chromium (a page `gyre eval` writes). */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { renderEvalHtml } from "../src/eval-html.js";
import { type EvalRunRecord, summariseRuns } from "../src/eval-report.js";

/** Screenshots are kept with the test output, for a person to look at. */
const outputDir = fileURLToPath(new URL("../../../test-output/", import.meta.url));

describe("gyre eval --html", () => {
  it("gyre eval's results.html draws each variant's pass rate with its interval, matching the summaries", async () => {
    const run = (variant: string, passed: boolean, repeat: number): EvalRunRecord => ({
      task: "t",
      variant,
      repeat,
      passed,
      reason: passed ? "stop" : "error",
      cost: 0.01,
      tokens: 100,
      turns: 2,
      wallMs: 1000,
      harnessErrors: {},
      sessionFile: "/tmp/s.jsonl",
    });
    const records = [
      ...Array.from({ length: 10 }, (_, n) => run("openai/gpt-4o", n < 8, n)),
      ...Array.from({ length: 10 }, (_, n) => run("anthropic/claude", n < 3, n)),
    ];
    const summaries = summariseRuns(records);
    const page = join(await mkdtemp(join(tmpdir(), "gyre-eval-page-")), "results.html");
    await writeFile(page, renderEvalHtml(summaries));
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    try {
      const tab = await (await browser.newContext({ offline: true })).newPage();
      await tab.goto(pathToFileURL(page).href);
      const points = await tab.locator("#chart-pass-rate circle").evaluateAll((circles) =>
        circles.map((circle) => ({
          label: circle.getAttribute("data-label"),
          rate: Number(circle.getAttribute("data-value")),
          low: Number(circle.getAttribute("data-low")),
          high: Number(circle.getAttribute("data-high")),
          y: circle.getBoundingClientRect().y,
        })),
      );
      expect(points.map(({ label, rate, low, high }) => ({ label, rate, low, high }))).toEqual(
        summaries.map((summary) => ({
          label: summary.variant,
          rate: summary.passRate,
          low: summary.interval[0],
          high: summary.interval[1],
        })),
      );
      // The higher pass rate is drawn higher on the page.
      expect(points[0]?.y).toBeLessThan(points[1]?.y ?? 0);
      // biome-ignore lint/performance/useDomNodeTextContent: the cell as rendered on screen is what is checked
      expect(await tab.locator('#variants tr[data-variant="openai/gpt-4o"] td').nth(2).innerText()).toBe(
        "80% (49%–94%)",
      );
      await mkdir(outputDir, { recursive: true });
      await tab.screenshot({ path: join(outputDir, "gyre-eval.png"), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
