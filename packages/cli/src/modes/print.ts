import type { Writable } from "node:stream";
import type { AgentSession, SessionEvent } from "../core/agent-session.js";
import { answerWithSchema } from "../core/answer-with-schema.js";
import { describeRunFailure } from "./run-outcome.js";

export type PrintModeOptions = {
  session: AgentSession;
  prompt: string;
  images?: import("@gyre/ai").ImageContent[];
  stdout: Writable;
  stderr: Writable;
  /** Progress lines (tool calls, retries, compaction) on stderr. */
  verbose: boolean;
  /** `--output-schema`: the answer must be JSON matching it; printed as one line of JSON. */
  outputSchema?: Record<string, unknown>;
};

/**
 * Print mode: runs one request and writes only the final assistant text to stdout. Failures
 * (provider error, abort, budget) go to stderr as one sentence; returns the exit code.
 */
export async function runPrintMode(options: PrintModeOptions): Promise<number> {
  const { session, stderr } = options;
  const unsubscribe = options.verbose ? session.subscribe((event) => writeProgress(stderr, event)) : () => {};
  try {
    const answer = await answerWithSchema({
      session,
      prompt: options.prompt,
      ...(options.images ? { images: options.images } : {}),
      ...(options.outputSchema ? { schema: options.outputSchema } : {}),
    });
    const failure =
      describeRunFailure(session, answer.result.reason) ??
      (answer.problems ? `The answer does not match the output schema: ${answer.problems.join("; ")}.` : undefined);
    if (failure) {
      stderr.write(`gyre: ${failure}\n`);
      return 1;
    }
    const text = answer.output ? JSON.stringify(answer.output.value) : (session.getLastAssistantText() ?? "");
    options.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  } finally {
    unsubscribe();
  }
}

function writeProgress(stderr: Writable, event: SessionEvent): void {
  switch (event.type) {
    case "tool_execution_start":
      stderr.write(`[tool] ${event.toolName} ${truncate(JSON.stringify(event.args), 160)}\n`);
      return;
    case "tool_execution_end":
      if (event.isError) stderr.write(`[tool error] ${event.toolName}\n`);
      return;
    case "retry":
      stderr.write(`[retry ${event.attempt}/${event.maxRetries} in ${Math.round(event.delayMs)} ms] ${event.reason}\n`);
      return;
    case "compaction_start":
      stderr.write(`[compaction] summarising older messages (${event.reason})\n`);
      return;
    case "loop_warning":
      stderr.write(`[loop check] ${event.message}\n`);
      return;
    case "subagent_event":
      if (event.event.type === "tool_execution_start") {
        stderr.write(`[${event.agent}] ${event.event.toolName} ${truncate(JSON.stringify(event.event.args), 140)}\n`);
      }
      return;
    case "budget_reached":
      stderr.write(`[budget] ${event.reason}\n`);
      return;
    default:
      return;
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
