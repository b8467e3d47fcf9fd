/**
 * Checks a parsed JSON value against a TypeBox schema and says, in one line each, EVERY problem
 * (JSON pointer, what was expected, what was found), plus the keys the schema does not know.
 * TypeBox's checker is loaded on first use: a run without a settings file never pays for it.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ValueError, ValueErrorType } from "@sinclair/typebox/errors";

/** What a schema check found: problems fail the load; unknown keys are only worth a warning. */
export type SchemaReport = { problems: string[]; unknownKeys: string[] };

/** Extra schema options this module reads: `expected` replaces the derived wording, `note` says why. */
export type ExpectationOptions = { expected?: string; note?: string };

type ErrorsModule = {
  Errors: (schema: TSchema, value: unknown) => Iterable<ValueError>;
  ValueErrorType: typeof ValueErrorType;
};
let errorsModule: Promise<ErrorsModule> | undefined;

/** TypeBox's error walker, imported once on first use (start-up: most runs never need it). */
function loadErrors(): Promise<ErrorsModule> {
  errorsModule ??= import("@sinclair/typebox/errors");
  return errorsModule;
}

/**
 * Every problem of `value` against `schema`, one sentence each such as
 * `/sandbox/mode must be one of "off", "read-only" (got "rw")`, and the JSON pointers of keys
 * that objects without `additionalProperties` do not declare. Never throws for any JSON value.
 */
export async function checkSchema(schema: TSchema, value: unknown): Promise<SchemaReport> {
  return (await loadSchemaChecker())(schema, value);
}

/** `checkSchema` without the wait, for callers that check many values (an RPC command stream). */
export type SchemaChecker = (schema: TSchema, value: unknown) => SchemaReport;

/** Loads TypeBox's checker once and returns a synchronous `checkSchema`. */
export async function loadSchemaChecker(): Promise<SchemaChecker> {
  const typebox = await loadErrors();
  return (schema, value) => collectProblems(typebox, schema, value);
}

function collectProblems(typebox: ErrorsModule, schema: TSchema, value: unknown): SchemaReport {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const error of typebox.Errors(schema, value)) {
    // One sentence per place: "must be a whole number" and "must be at least 1" say the same thing.
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    problems.push(describeError(error, typebox.ValueErrorType));
  }
  return { problems, unknownKeys: findUnknownKeys(schema, value, "") };
}

/**
 * The message for a file with problems: one line when there is one, else a count and one line
 * per problem, each naming the file (`<title> <file>: /path must be …`).
 */
export function describeFileProblems(title: string, file: string, problems: readonly string[]): string {
  if (problems.length === 1) return `${title} ${file}: ${problems[0]}`;
  const lines = problems.map((problem) => `  ${file}: ${problem}`);
  return `${title} ${file} (${problems.length} problems):\n${lines.join("\n")}`;
}

/** A JSON pointer as the user reads it: the root has no path of its own. */
function place(path: string): string {
  return path === "" ? "the value" : path;
}

function describeError(error: ValueError, types: typeof ValueErrorType): string {
  const options = error.schema as TSchema & ExpectationOptions;
  const note = options.note ? `: ${options.note}` : "";
  if (error.type === types.ObjectRequiredProperty) {
    return `${place(error.path)} is missing; it must be ${describeSchema(error.schema)}${note}`;
  }
  if (error.type === types.ObjectAdditionalProperties) {
    const known = Object.keys((error.schema as { properties?: object }).properties ?? {});
    return `${place(error.path)} is not a known key; use ${known.join(", ")}`;
  }
  return `${place(error.path)} must be ${describeSchema(error.schema)} (got ${show(error.value)})${note}`;
}

/** What a value of `schema` looks like, in words ("a positive whole number", `one of "a", "b"`). */
export function describeSchema(schema: TSchema): string {
  const options = schema as TSchema & ExpectationOptions & Record<string, unknown>;
  if (options.expected) return options.expected;
  if ("const" in options) return JSON.stringify(options.const);
  if (Array.isArray(options.anyOf)) {
    const variants = options.anyOf as (TSchema & { const?: unknown })[];
    if (variants.every((variant) => "const" in variant)) {
      return `one of ${variants.map((variant) => JSON.stringify(variant.const)).join(", ")}`;
    }
    return variants.map(describeSchema).join(" or ");
  }
  switch (options.type) {
    case "integer":
    case "number":
      return describeNumber(options);
    case "boolean":
      return "true or false";
    case "string":
      return "a string";
    case "array":
      return `a list of ${plural(options.items as TSchema | undefined)}`;
    case "object":
      return "an object";
    default:
      return "a valid value";
  }
}

function describeNumber(options: Record<string, unknown>): string {
  const kind = options.type === "integer" ? "whole number" : "number";
  const positive = options.exclusiveMinimum === 0;
  const { minimum, maximum } = options as { minimum?: number; maximum?: number };
  const base = positive ? `a positive ${kind}` : `a ${kind}`;
  if (minimum !== undefined && maximum !== undefined) return `${base} from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `${base} of at least ${minimum}`;
  if (maximum !== undefined) return `${base} of at most ${maximum}`;
  return base;
}

function plural(items: TSchema | undefined): string {
  if (!items) return "values";
  const type = (items as { type?: string }).type;
  if (type === "string") return "strings";
  if (type === "object") return "objects";
  if (type === "integer" || type === "number") return "numbers";
  return `values that are each ${describeSchema(items)}`;
}

/** A short rendering of what the user wrote, for "(got …)". */
function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** JSON pointer escaping (RFC 6901), as TypeBox writes its paths. */
function escapeKey(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Keys of `value` that an object schema without `additionalProperties` does not declare:
 * such objects accept them (an older or newer gyre may know them), but the user hears of a typo.
 */
function findUnknownKeys(schema: TSchema, value: unknown, path: string): string[] {
  const record = schema as Record<string, unknown>;
  if (Array.isArray(value)) {
    const items = record.items as TSchema | undefined;
    return items ? value.flatMap((item, index) => findUnknownKeys(items, item, `${path}/${index}`)) : [];
  }
  if (!value || typeof value !== "object") return [];
  const entries = Object.entries(value);
  const properties = record.properties as Record<string, TSchema> | undefined;
  if (record.type === "object" && properties) {
    return entries.flatMap(([key, child]) => {
      const childPath = `${path}/${escapeKey(key)}`;
      const property = properties[key];
      if (property) return findUnknownKeys(property, child, childPath);
      return record.additionalProperties === undefined ? [childPath] : [];
    });
  }
  const patterns = record.patternProperties as Record<string, TSchema> | undefined;
  const inner = patterns ? Object.values(patterns)[0] : undefined;
  return inner ? entries.flatMap(([key, child]) => findUnknownKeys(inner, child, `${path}/${escapeKey(key)}`)) : [];
}
