import { mkdtemp, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectUsage, parseSince } from "../../src/core/usage/collect-usage.js";
import type { UsageReport } from "../../src/core/usage/usage-report.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { usageOf, writeSession } from "./session-fixtures.js";

const day = 86_400_000;
const now = Date.parse("2026-12-02T05:00:00Z");

/** A project with two sessions, one starting a subagent with its own journal, and a fork of one. */
async function writeProject(sessionsDir: string) {
  const parent = await writeSession({
    sessionsDir,
    cwd: "/work/app",
    calls: [
      { at: now - 2 * day, model: "anthropic/claude-sonnet", usage: usageOf(100, 50, 900, 0, 0.5) },
      { at: now - 2 * day + 1000, model: "anthropic/claude-sonnet", usage: usageOf(200, 20, 0, 800, 0.25) },
    ],
    compaction: { at: now - 2 * day + 5000, usage: usageOf(1000, 100, 0, 0, 0.1) },
    damaged: true,
    torn: true,
  });
  const journal = await writeSession({
    sessionsDir,
    cwd: "/work/app",
    subagent: { agent: "explore", parentSession: parent },
    calls: [{ at: now - 2 * day + 2000, model: "openai/gpt-mini", usage: usageOf(300, 30, 300, 0, 0.05) }],
  });
  // The parent's task result links the journal: its totals must not count a second time.
  await writeSession({
    sessionsDir,
    cwd: "/work/app",
    calls: [{ at: now - day / 2, model: "openai/gpt-mini", usage: usageOf(10, 5, 0, 0, 0.01) }],
    tasks: [
      { toolCallId: "call_1", sessionFile: journal, usage: usageOf(300, 30, 300, 0, 0.05), at: now - day / 2 + 10 },
      // A subagent run without a sessions folder has no journal: its result is all there is.
      { toolCallId: "call_2", usage: usageOf(40, 4, 0, 0, 0.02), agent: "review", at: now - day / 2 + 20 },
    ],
  });
  // A fork copies its parent's entries: the copied answer counts once.
  await writeSession({
    sessionsDir,
    cwd: "/work/other",
    parentSession: parent,
    calls: [{ at: now - 2 * day, model: "anthropic/claude-sonnet", usage: usageOf(100, 50, 900, 0, 0.5) }],
  });
}

describe("gyre stats", () => {
  it("sums calls by model, day, project and agent, counting a fork's copies and linked subagents once", async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), "gyre-stats-"));
    await writeProject(sessionsDir);
    const report = await collectUsage({ sessionsDir });
    expect(report.totals.calls).toBe(6);
    expect(report.totals.cost).toBeCloseTo(0.5 + 0.25 + 0.1 + 0.05 + 0.01 + 0.02, 10);
    expect(report.totals.input).toBe(100 + 200 + 1000 + 300 + 10 + 40);
    expect(report.totals.cacheRead).toBe(1200);
    expect(report.totals.cacheWrite).toBe(800);
    expect(report.totals.cacheHitRatio).toBeCloseTo(1200 / (1650 + 1200 + 800), 10);
    expect(report.sessions).toBe(3);
    expect(report.subagentSessions).toBe(1);
    expect(report.unreadableLines).toBe(1);
    const byKey = (groups: UsageReport["byAgent"]) =>
      Object.fromEntries(groups.map((group) => [group.key, group.calls]));
    expect(byKey(report.byAgent)).toEqual({ main: 4, explore: 1, review: 1 });
    expect(byKey(report.byModel)).toEqual({
      "anthropic/claude-sonnet": 2,
      "openai/gpt-mini": 2,
      compaction: 1,
      subagents: 1,
    });
    expect(byKey(report.byDay)).toEqual({ "2026-11-30": 4, "2026-12-01": 2 });
    expect(byKey(report.byProject)).toEqual({ "/work/app": 6 });
    expect(report.perTurn.cost).toBeCloseTo(report.totals.cost / 6, 10);
  });

  it("counts a copied answer for the session that made the call, even when its fork is read first", async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), "gyre-stats-"));
    const call = { at: now - day, model: "anthropic/claude-sonnet", usage: usageOf(100, 50, 0, 0, 0.5) };
    const parent = await writeSession({ sessionsDir, cwd: "/work/zz-app", calls: [call] });
    // The fork's folder sorts first, and one file at a time reads in that order.
    await writeSession({ sessionsDir, cwd: "/work/aa-fork", parentSession: parent, calls: [call] });
    for (const concurrency of [1, 16]) {
      const report = await collectUsage({ sessionsDir, concurrency });
      expect(report.totals.calls).toBe(1);
      expect(report.byProject.map((group) => [group.key, group.calls])).toEqual([["/work/zz-app", 1]]);
    }
  });

  it("limits --since to later calls and leaves older files unopened", async () => {
    const sessionsDir = await mkdtemp(join(tmpdir(), "gyre-stats-"));
    const old = await writeSession({
      sessionsDir,
      cwd: "/p",
      calls: [{ at: now - 10 * day, model: "a/m", usage: usageOf(1, 1, 0, 0, 1) }],
    });
    await utimes(old, new Date(now - 10 * day), new Date(now - 10 * day));
    await writeSession({
      sessionsDir,
      cwd: "/p",
      calls: [
        { at: now - 3 * day, model: "a/m", usage: usageOf(1, 1, 0, 0, 2) },
        { at: now - day, model: "a/m", usage: usageOf(1, 1, 0, 0, 4) },
      ],
    });
    const since = parseSince("2d", new Date(now));
    expect(since?.toISOString()).toBe("2026-11-30T05:00:00.000Z");
    const report = await collectUsage({ sessionsDir, ...(since ? { since } : {}) });
    expect(report.totals.cost).toBe(4);
    expect(report.sessions).toBe(1);
    expect(report.since).toBe("2026-11-30T05:00:00.000Z");
    expect(parseSince("soon")).toBeUndefined();
    expect(parseSince("2026-11-01")?.toISOString()).toBe("2026-11-01T00:00:00.000Z");
  });

  it("prints the report, its JSON, and one sentence for a bad --since", async () => {
    const { cwd, home } = await createWorkspace();
    await writeProject(join(home, "sessions"));
    const env = cliEnv(home);
    const text = await runCli(["stats"], { cwd, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("3 sessions, 1 subagent sessions, 6 model calls");
    expect(text.stdout).toContain("$0.9300");
    expect(text.stdout).toMatch(/explore\s+1\s/);
    const json = await runCli(["stats", "--json"], { cwd, env });
    const report = JSON.parse(json.stdout) as UsageReport;
    expect(report.totals.calls).toBe(6);
    const bad = await runCli(["stats", "--since", "soon"], { cwd, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([
      'gyre: --since needs a span such as 7d, 12h or 2w, or a date such as 2026-11-01; got "soon".',
    ]);
    const empty = await runCli(["stats", "--since", "1m"], { cwd, env });
    expect(empty.stdout).toMatch(/^No model calls since .* \(0 sessions read\)\.\n$/);
  });
});
