/**
 * `--output-schema <file.json>` (docs/design/delegation.md): the final answer of a print or JSON run must be JSON
 * that matches a JSON Schema. The model is told so up front; an answer that fails is sent back
 * once with the problems, and a second failure fails the run. Validation reuses the agent's
 * tool-argument validator (ajv, loaded on first use).
 */
import { readFile } from "node:fs/promises";
import { loadValidateArguments } from "@gyre/agent";

export type OutputCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** Reads and parses a schema file; throws one sentence naming the file when it is not a JSON object. */
export async function loadOutputSchema(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(
      `Cannot read the output schema ${path} (${(error as NodeJS.ErrnoException).code ?? "error"}); pass a JSON Schema file.`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new Error(`The output schema ${path} is not valid JSON: ${(error as Error).message}.`);
  }
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    throw new Error(`The output schema ${path} must be a JSON Schema object such as {"type": "object", ...}.`);
  }
  return schema as Record<string, unknown>;
}

/** What the system prompt says when an output schema is set. */
export function describeOutputSchema(schema: Record<string, unknown>): string {
  return (
    "Your final answer is read by a program: it must be only a JSON value (no prose, no Markdown fence) that matches this JSON Schema:\n" +
    JSON.stringify(schema, null, 2)
  );
}

/** The follow-up prompt for an answer that did not match. */
export function describeOutputProblems(problems: readonly string[]): string {
  return (
    "Your final answer does not match the required JSON Schema:\n" +
    problems.map((problem) => `- ${problem}`).join("\n") +
    "\nReply with only the corrected JSON value."
  );
}

/** Parses the answer (whole, or the one fenced ```json block it holds) and validates it against `schema`. */
export async function checkOutput(schema: Record<string, unknown>, answer: string): Promise<OutputCheck> {
  const parsed = parseAnswer(answer);
  if (!parsed.ok) return parsed;
  const validate = await loadValidateArguments();
  // The validator takes an object of arguments: wrap the value so any root type can be checked.
  const outcome = validate(
    { type: "object", properties: { value: schema }, required: ["value"] },
    { value: parsed.value },
  );
  if (outcome.ok) return { ok: true, value: outcome.value.value };
  return {
    ok: false,
    problems: outcome.problems.map((problem) => problem.replace(/^\/value(?=[/:])/, "").replace(/^:/, "/:")),
  };
}

function parseAnswer(answer: string): OutputCheck {
  const trimmed = answer.trim();
  if (trimmed === "") return { ok: false, problems: ["the answer is empty; it must be a JSON value"] };
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(trimmed);
  const text = fenced?.[1] ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problems: [`the answer is not JSON (${(error as Error).message})`] };
  }
}
