import { parseReviewArgs } from "../../../core/review/review-args.js";
import { locationOf, type ReviewFinding, renderFindings } from "../../../core/review/review-findings.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** /review [--base <ref>] [focus…]: a read-only subagent reviews the changes (docs/review.md); findings are printed. */
export const reviewCommand: SlashCommand = {
  name: "review",
  description: "Have a read-only subagent review the uncommitted changes (or --base <ref>: the branch)",
  argumentHint: "[--base <ref> | --uncommitted] [focus]",
  run: async (args, context) => {
    const parsed = parseReviewArgs(args);
    if ("error" in parsed) return context.notify(parsed.error, "warning");
    const { base } = parsed;
    const { layout } = context;
    layout.status.set(
      style.gray(
        base ? `Reviewing the branch against ${base}… (Esc stops)` : "Reviewing the uncommitted changes… (Esc stops)",
      ),
    );
    layout.render();
    try {
      const result = await context.session.submit({ type: "review", ...parsed });
      const heading = style.bold(`Review of ${result.target}`);
      context.print(`${heading}\n\n${colourFindings(sanitizeText(renderFindings(result)), result.findings)}`);
      if (result.reason !== "stop" && result.reason !== "budget")
        context.notify(`The review did not finish: ${result.errorMessage ?? result.reason}.`, "warning");
    } finally {
      layout.status.set("");
      context.refreshInfo();
    }
  },
};

/** Each finding's first line coloured by severity. */
function colourFindings(text: string, findings: readonly ReviewFinding[]): string {
  const paint = { high: style.red, medium: style.yellow, low: style.cyan } as const;
  const heads = new Map(
    findings.map((finding) => [`${locationOf(finding)} [${finding.severity}]`, paint[finding.severity]]),
  );
  return text
    .split("\n")
    .map((line) => {
      for (const [head, colour] of heads) if (line.startsWith(head)) return colour(line);
      return line;
    })
    .join("\n");
}
