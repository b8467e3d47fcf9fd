/**
 * The results of `gyre eval`: per variant (build × model), the pass rate with a 95 % Wilson
 * interval, cost, tokens, wall time, turns and harness errors, as JSON and as a Markdown table.
 */

/** What one run of one task under one variant gave. */
export type EvalRunRecord = {
  task: string;
  variant: string;
  repeat: number;
  passed: boolean;
  /** Why the run ended (the result line's reason), or "crashed" / "timeout" without a result. */
  reason: string;
  cost: number;
  tokens: number;
  turns: number;
  wallMs: number;
  /** Harness faults seen in the run, by kind (tool-call parse failures, unknown tools, crashes…). */
  harnessErrors: Record<string, number>;
  /** The check command's last output lines (failed checks only). */
  checkOutput?: string;
  sessionFile: string;
  /** The command that replays this run against another build's tools (folder tasks only). */
  replay?: string;
};

export type EvalVariantSummary = {
  variant: string;
  runs: number;
  passed: number;
  passRate: number;
  /** 95 % Wilson score interval of the pass rate. */
  interval: [number, number];
  costUsd: number;
  tokens: number;
  meanTurns: number;
  meanWallMs: number;
  harnessErrors: number;
  harnessErrorKinds: Record<string, number>;
};

/** The 95 % Wilson score interval of `passed` successes in `runs` trials ([0, 0] without runs). */
export function wilsonInterval(passed: number, runs: number, z = 1.96): [number, number] {
  if (runs === 0) return [0, 0];
  const p = passed / runs;
  const z2 = z * z;
  const denominator = 1 + z2 / runs;
  const centre = (p + z2 / (2 * runs)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** One summary per variant, in the order the variants first appear. */
export function summariseRuns(records: readonly EvalRunRecord[]): EvalVariantSummary[] {
  const groups = new Map<string, EvalRunRecord[]>();
  for (const record of records) groups.set(record.variant, [...(groups.get(record.variant) ?? []), record]);
  return [...groups].map(([variant, runs]) => {
    const passed = runs.filter((run) => run.passed).length;
    const kinds: Record<string, number> = {};
    for (const run of runs)
      for (const [kind, count] of Object.entries(run.harnessErrors)) kinds[kind] = (kinds[kind] ?? 0) + count;
    const sum = (pick: (run: EvalRunRecord) => number) => runs.reduce((total, run) => total + pick(run), 0);
    return {
      variant,
      runs: runs.length,
      passed,
      passRate: passed / runs.length,
      interval: wilsonInterval(passed, runs.length),
      costUsd: sum((run) => run.cost),
      tokens: sum((run) => run.tokens),
      meanTurns: sum((run) => run.turns) / runs.length,
      meanWallMs: sum((run) => run.wallMs) / runs.length,
      harnessErrors: Object.values(kinds).reduce((total, count) => total + count, 0),
      harnessErrorKinds: kinds,
    };
  });
}

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

/** The summaries as a Markdown table, then one line per failed run. */
export function renderEvalMarkdown(
  summaries: readonly EvalVariantSummary[],
  records: readonly EvalRunRecord[],
): string {
  const rows = summaries.map((s) => {
    const kinds = Object.entries(s.harnessErrorKinds)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(", ");
    return `| ${s.variant} | ${s.passed}/${s.runs} | ${percent(s.passRate)} (${percent(s.interval[0])}–${percent(s.interval[1])}) | $${s.costUsd.toFixed(4)} | ${s.tokens} | ${s.meanTurns.toFixed(1)} | ${(s.meanWallMs / 1000).toFixed(1)} s | ${s.harnessErrors}${kinds ? ` (${kinds})` : ""} |`;
  });
  const failures = records
    .filter((record) => !record.passed)
    .map(
      (record) => `- ${record.variant} · ${record.task} #${record.repeat}: ${record.reason} (${record.sessionFile})`,
    );
  return [
    "| variant | passed | pass rate (95% CI) | cost | tokens | turns (mean) | wall (mean) | harness errors |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    ...(failures.length > 0 ? ["", "Failed runs:", ...failures] : []),
    "",
  ].join("\n");
}
