import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

/** The outcome of validating a tool call's arguments. */
export type ValidationOutcome = { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[] };

let ajv: Ajv | undefined;
/** Compiled validators keyed by the schema object itself, so a tool's schema compiles once. */
const validators = new WeakMap<object, ValidateFunction>();

/**
 * Validates `args` against a JSON Schema, coercing scalar types the way models often get them
 * wrong ("10" → 10, "true" → true). Never mutates `args`; returns the coerced copy or one line
 * per problem, each naming its path. Never throws: a schema that does not compile is a problem.
 */
export function validateArguments(schema: Record<string, unknown>, args: Record<string, unknown>): ValidationOutcome {
  let validate = validators.get(schema);
  if (!validate) {
    try {
      // Created lazily: compiling needs ajv, which a run without tool calls never does. No
      // meta-schema validation: compiling draft-07's meta-schema cost 40–50 ms on the first tool
      // call of every process, and ajv's keyword checks still refuse a malformed schema.
      ajv ??= new Ajv({ coerceTypes: true, allErrors: true, strict: false, validateSchema: false });
      validate = ajv.compile(schema);
    } catch (error) {
      return { ok: false, problems: [`the tool's parameter schema does not compile: ${(error as Error).message}`] };
    }
    validators.set(schema, validate);
  }
  const value = copyJson(args);
  if (validate(value)) return { ok: true, value };
  return { ok: false, problems: (validate.errors ?? []).map(describeProblem) };
}

/** One problem as a line the model can act on: the path first, then what is wrong. */
function describeProblem(error: ErrorObject): string {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string")
    return `${at}/${params.missingProperty}: missing required property "${params.missingProperty}"`;
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string")
    return `${at}/${params.additionalProperty}: unknown property "${params.additionalProperty}" (the schema allows no other properties)`;
  if (error.keyword === "enum" && Array.isArray(params.allowedValues))
    return `${at || "/"}: must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${at || "/"}: ${error.message ?? error.keyword}`;
}

/**
 * Deep-copies parsed JSON (ajv's coercion mutates in place; the model's original arguments must
 * stay as received). Much cheaper than `structuredClone` for the small objects tool calls carry.
 */
function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A "__proto__" key from JSON.parse is an own property; plain assignment would set the prototype.
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: copyJson(item), enumerable: true, writable: true });
    else copy[key] = copyJson(item);
  }
  return copy as T;
}
