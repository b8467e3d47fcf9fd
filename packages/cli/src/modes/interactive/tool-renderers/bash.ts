import type { BashToolDetails } from "../../../core/tools/bash-tool.js";
import { style } from "../theme.js";
import { splitLines, type ToolRenderer } from "./tool-renderer.js";

/** A command: its live tail while it runs, then the output's tail and how it ended. */
export const bashRenderer: ToolRenderer<BashToolDetails> = {
  detailFields: { exitCode: "number", durationMs: "number", timedOut: "boolean", aborted: "boolean" },
  describeArgs: (args) => (typeof args.command === "string" ? args.command : undefined),
  showsLiveOutput: true,
  errorKeeps: "tail",
  renderResult: ({ details, text, collapse }) => [...collapse(splitLines(text), "tail"), describeExit(details)],
};

function describeExit(details: Partial<BashToolDetails>): string {
  const seconds = details.durationMs !== undefined ? ` · ${(details.durationMs / 1000).toFixed(1)}s` : "";
  if (details.timedOut) return style.red(`timed out${seconds}`);
  if (details.aborted) return style.yellow(`aborted${seconds}`);
  const code = details.exitCode;
  if (typeof code !== "number") return style.gray(`done${seconds}`);
  return code === 0 ? style.gray(`exit 0${seconds}`) : style.red(`exit ${code}${seconds}`);
}
