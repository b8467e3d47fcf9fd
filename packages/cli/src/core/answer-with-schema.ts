/**
 * Runs a headless request whose answer must match `--output-schema`: after the run, the answer is
 * checked; a mismatch is sent back to the model once with each problem listed; a second mismatch
 * fails. Without a schema it is just `session.prompt`.
 */
import type { ImageContent } from "@gyre/ai";
import type { AgentSession, SessionRunResult } from "./agent-session.js";
import { checkOutput, describeOutputProblems } from "./output-schema.js";

export type SchemaAnswer = {
  result: SessionRunResult;
  /** Set when a schema was given and the answer matched. */
  output?: { value: unknown };
  /** Set when a schema was given and the answer still did not match. */
  problems?: string[];
};

/** Prompts the session and, with a schema, enforces it as described above. */
export async function answerWithSchema(options: {
  session: AgentSession;
  prompt: string;
  images?: ImageContent[];
  schema?: Record<string, unknown>;
}): Promise<SchemaAnswer> {
  const { session, schema } = options;
  const first = await session.prompt(options.prompt, options.images ?? []);
  if (schema === undefined || first.reason !== "stop") return { result: first };
  const checked = await checkOutput(schema, session.getLastAssistantText() ?? "");
  if (checked.ok) return { result: first, output: { value: checked.value } };
  const retry = await session.prompt(describeOutputProblems(checked.problems));
  const result = { messages: [...first.messages, ...retry.messages], reason: retry.reason };
  if (retry.reason !== "stop") return { result };
  const again = await checkOutput(schema, session.getLastAssistantText() ?? "");
  return again.ok ? { result, output: { value: again.value } } : { result, problems: again.problems };
}
