/**
 * The reviewer's answer (docs/review.md): asked for one JSON object of findings, read tolerantly
 * (a fenced block, or the first object in the text); an answer with no such object is kept as
 * free text. Rendered one finding per block, `path:line severity: text` (the form of
 * docs/review.md), its explanation and fix indented below it.
 */

export const REVIEW_SEVERITIES = ["high", "medium", "low"] as const;
export type ReviewSeverity = (typeof REVIEW_SEVERITIES)[number];

export type ReviewFinding = {
  file: string;
  /** 1-based; absent when the finding is about the file as a whole. */
  line?: number;
  severity: ReviewSeverity;
  title: string;
  explanation?: string;
  /** The suggested fix, in words or code. */
  fix?: string;
};

export type ReviewFindings = {
  findings: ReviewFinding[];
  summary?: string;
  /** The answer as the model gave it, when it held no findings object. */
  text?: string;
};

/** The answer shape the reviewer is asked for (quoted in its prompt). */
export const FINDINGS_SHAPE = `{"summary": "one sentence", "findings": [{"file": "path/from/repo/root", "line": 12, "severity": "high" | "medium" | "low", "title": "what is wrong, in a few words", "explanation": "why it is a problem", "fix": "the change that fixes it"}]}`;

/** Reads findings out of the reviewer's final answer; never throws. */
export function parseFindings(answer: string): ReviewFindings {
  for (const candidate of jsonCandidates(answer)) {
    const parsed = tryParse(candidate);
    const list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed.findings : undefined;
    if (!Array.isArray(list)) continue;
    const findings = list.flatMap((item) => {
      const finding = toFinding(item);
      return finding ? [finding] : [];
    });
    const summary = isRecord(parsed) && typeof parsed.summary === "string" ? parsed.summary.trim() : undefined;
    return { findings, ...(summary ? { summary } : {}) };
  }
  return { findings: [], ...(answer.trim() ? { text: answer.trim() } : {}) };
}

/** Plain text: one block per finding, most severe first, and a count line. */
export function renderFindings(result: ReviewFindings): string {
  const lines: string[] = [];
  if (result.summary) lines.push(result.summary, "");
  const order = (finding: ReviewFinding) => REVIEW_SEVERITIES.indexOf(finding.severity);
  for (const finding of [...result.findings].sort((a, b) => order(a) - order(b))) {
    lines.push(`${locationOf(finding)} ${finding.severity}: ${finding.title}`);
    if (finding.explanation) lines.push(...indent(finding.explanation));
    if (finding.fix) lines.push(...indent(`fix: ${finding.fix}`));
    lines.push("");
  }
  if (result.text) lines.push(result.text, "");
  const count = result.findings.length;
  lines.push(count === 0 ? "No findings." : `${count} finding${count === 1 ? "" : "s"}.`);
  return lines.join("\n");
}

/** `file:line`, or the file alone. */
export function locationOf(finding: ReviewFinding): string {
  return finding.line === undefined ? finding.file : `${finding.file}:${finding.line}`;
}

function indent(text: string): string[] {
  return text.split("\n").map((line) => `    ${line}`);
}

/** Fenced blocks first, then the text from its first `{` (or `[`) to the matching last one. */
function jsonCandidates(answer: string): string[] {
  const candidates: string[] = [];
  for (const match of answer.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)) candidates.push(match[1] as string);
  const open = answer.indexOf("{");
  const close = answer.lastIndexOf("}");
  if (open !== -1 && close > open) candidates.push(answer.slice(open, close + 1));
  const openList = answer.indexOf("[");
  const closeList = answer.lastIndexOf("]");
  if (openList !== -1 && closeList > openList) candidates.push(answer.slice(openList, closeList + 1));
  return candidates;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toFinding(item: unknown): ReviewFinding | undefined {
  if (!isRecord(item)) return undefined;
  const file = stringOf(item.file) ?? stringOf(item.path);
  const title = stringOf(item.title) ?? stringOf(item.message) ?? stringOf(item.issue);
  if (!file || !title) return undefined;
  const line = Number(item.line);
  const severity = String(item.severity ?? "").toLowerCase();
  const explanation = stringOf(item.explanation) ?? stringOf(item.body);
  const fix = stringOf(item.fix) ?? stringOf(item.suggestion);
  return {
    file,
    ...(Number.isInteger(line) && line > 0 ? { line } : {}),
    severity: (REVIEW_SEVERITIES as readonly string[]).includes(severity) ? (severity as ReviewSeverity) : "medium",
    title,
    ...(explanation ? { explanation } : {}),
    ...(fix ? { fix } : {}),
  };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}
