import type { validateArguments } from "./validate-arguments.js";

let loading: Promise<typeof validateArguments> | undefined;

/**
 * Loads `validateArguments` (see validate-arguments.ts): validates tool arguments against a JSON
 * Schema with scalar coercion, returning the coerced copy or one line per problem; never throws.
 * The module loads once; a failed load rejects and is retried on the next call.
 */
export function loadValidateArguments(): Promise<typeof validateArguments> {
  // ajv is about 200 kB of bundle that a run without tool calls never runs: it loads at the first
  // tool call instead of at start-up (start-up time).
  loading ??= import("./validate-arguments.js").then(
    (module) => module.validateArguments,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
