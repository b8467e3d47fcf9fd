import type { Writable } from "node:stream";
import type { ImageContent } from "@gyre/ai";
import type { AgentSession } from "../core/agent-session.js";
import { answerWithSchema } from "../core/answer-with-schema.js";
import { buildRunResult } from "../core/run-result.js";
import { createRedactor, type Redactor } from "../core/session/redact-secrets.js";
import { describeAnswerProblem } from "./answer-notice.js";
import { describeRunFailure } from "./run-outcome.js";

/**
 * JSON mode: the session header first, then every agent and harness event as one JSON line,
 * written as it happens, and last one `result` line (docs/design/delegation.md). Events carry deltas, not snapshots, so output stays linear in size.
 * Lines are redacted like session lines (keys held in the environment, `--api-key`, known key
 * shapes): this output is typically piped to a log.
 */
export async function runJsonMode(options: {
  session: AgentSession;
  prompt: string;
  images?: ImageContent[];
  stdout: Writable;
  stderr: Writable;
  /** Default: the redaction of session files, over `process.env`. */
  redact?: Redactor;
  /** `--output-schema`: the answer must be JSON matching it (the result line carries it as `output`). */
  outputSchema?: Record<string, unknown>;
  /** The active sandbox level (`workspace-write, network off`), added to the header line as `sandbox`. */
  describeSandbox?: () => Promise<string>;
}): Promise<number> {
  const { session, stdout } = options;
  const redact = options.redact ?? createRedactor({ env: process.env });
  const writeLine = (value: unknown) => stdout.write(`${redact(JSON.stringify(value))}\n`);
  // The sandbox level rides on the header line so a log shows what confined the run.
  const sandbox = options.describeSandbox ? { sandbox: await options.describeSandbox() } : {};
  writeLine({ ...session.state.header, ...sandbox });
  const unsubscribe = session.subscribe((event) => writeLine(event));
  try {
    const startedAt = Date.now();
    const answer = await answerWithSchema({
      session,
      prompt: options.prompt,
      ...(options.images ? { images: options.images } : {}),
      ...(options.outputSchema ? { schema: options.outputSchema } : {}),
    });
    const output = answer.output?.value;
    writeLine(
      buildRunResult({
        session,
        result: answer.result,
        startedAt,
        ...(answer.output ? { output, text: JSON.stringify(output) } : {}),
      }),
    );
    const failure =
      describeRunFailure(session, answer.result.reason) ??
      (answer.problems ? `The answer does not match the output schema: ${answer.problems.join("; ")}.` : undefined);
    if (failure) options.stderr.write(`gyre: ${failure}\n`);
    const problem = failure ? undefined : describeAnswerProblem(session.messages);
    if (problem) {
      writeLine({ type: "answer_problem", message: problem });
      options.stderr.write(`gyre: ${problem}\n`);
    }
    return failure || problem ? 1 : 0;
  } finally {
    unsubscribe();
  }
}
