import type { Writable } from "node:stream";
import type { AgentSession, SessionEvent } from "../core/agent-session.js";
import { answerWithSchema } from "../core/answer-with-schema.js";
import { createRedactor, type Redactor } from "../core/session/redact-secrets.js";
import { describeAnswerProblem } from "./answer-notice.js";
import { sanitizeText } from "./interactive/sanitize-text.js";
import { describeRunFailure } from "./run-outcome.js";
import { describeWebSearches } from "./web-search-lines.js";

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
 * (provider error, abort, budget) and an answer that is empty, only reasoning, or cut at the
 * output limit go to stderr as one sentence, with exit code 1; returns the exit code. The
 * provider's web searches (query, result count, cited URLs) are reported on stderr.
 */
export async function runPrintMode(options: PrintModeOptions): Promise<number> {
  const { session, stderr } = options;
  // Retry waits are always said: seconds of silence before an answer look like a hang.
  const unsubscribe = session.subscribe((event) => {
    if (options.verbose) writeProgress(stderr, event);
    else if (event.type === "retry") writeRetry(stderr, event);
    // What the provider searched, and the pages the answer cites, go with the progress lines.
    if (event.type === "message_end" && event.message.role === "assistant") {
      for (const line of describeWebSearches(event.message)) stderr.write(`gyre: ${prepareForStdout(line, stderr)}\n`);
    }
  });
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
    if (answer.output) {
      options.stdout.write(`${prepareForStdout(JSON.stringify(answer.output.value), options.stdout)}\n`);
      return 0;
    }
    const text = prepareForStdout(session.getLastAssistantText() ?? "", options.stdout);
    const problem = describeAnswerProblem(session.messages);
    // No text and no problem: an extension command took the prompt and ran no model; stdout stays empty.
    if (text !== "") options.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    if (problem === undefined) return 0;
    stderr.write(`gyre: ${problem}\n`);
    return 1;
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
      writeRetry(stderr, event);
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

let redact: Redactor | undefined;

/**
 * The model's text as it may reach stdout: keys redacted (stdout is often logged), and, when
 * stdout is a terminal, control sequences (OSC 52 clipboard writes, CSI, NUL) made visible and inert.
 */
export function prepareForStdout(text: string, stdout: Writable): string {
  redact ??= createRedactor({ env: process.env });
  const redacted = redact(text);
  return (stdout as Writable & { isTTY?: boolean }).isTTY ? sanitizeText(redacted) : redacted;
}

function writeRetry(stderr: Writable, event: Extract<SessionEvent, { type: "retry" }>): void {
  const seconds = (event.delayMs / 1000).toFixed(1);
  stderr.write(`gyre: retry ${event.attempt}/${event.maxRetries} in ${seconds}s: ${event.reason}\n`);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
