/**
 * JSON Schema rewriting for OpenAI's strict function calling (constrained sampling). Strict mode
 * accepts only schemas where every object lists all its properties in `required` and sets
 * `additionalProperties: false`; an optional property is expressed by allowing `null`.
 */

type Schema = Record<string, unknown>;

const schemaMapKeys = ["properties", "$defs", "definitions", "patternProperties"] as const;
const schemaListKeys = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObjectSchema(schema: Schema): boolean {
  const type = schema.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || isSchema(schema.properties);
}

/**
 * Returns a strict-compatible copy of `schema`, recursively (nested objects, array items,
 * `anyOf`/`oneOf`/`allOf`, `$defs`): every object lists all its properties in `required`, gets
 * `additionalProperties: false`, and each property that was optional accepts `null` (by adding
 * `"null"` to its `type`, or by wrapping it in `anyOf: [schema, {type: "null"}]` when it has no
 * plain type). Pure: the input is not modified. Use `removeNullOptionals` on the arguments the
 * model returns to map those `null`s back to absent properties.
 */
export function toStrictSchema(schema: Schema): Schema {
  const result: Schema = { ...schema };
  for (const key of schemaMapKeys) {
    const map = schema[key];
    if (!isSchema(map)) continue;
    const converted: Schema = {};
    for (const [name, child] of Object.entries(map)) converted[name] = isSchema(child) ? toStrictSchema(child) : child;
    result[key] = converted;
  }
  for (const key of schemaListKeys) {
    const list = schema[key];
    if (Array.isArray(list)) result[key] = list.map((child) => (isSchema(child) ? toStrictSchema(child) : child));
  }
  if (isSchema(schema.items)) result.items = toStrictSchema(schema.items);
  if (isSchema(schema.additionalProperties) && !isSchema(schema.properties)) {
    // A map-like object (`additionalProperties: {schema}`) cannot be expressed in strict mode;
    // keep the value schema strict and let the caller see the API's own error if it rejects it.
    result.additionalProperties = toStrictSchema(schema.additionalProperties);
  }
  if (!isObjectSchema(schema)) return result;

  const properties = isSchema(result.properties) ? result.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : []);
  const strictProperties: Schema = {};
  for (const [name, child] of Object.entries(properties)) {
    strictProperties[name] = required.has(name) || !isSchema(child) ? child : makeNullable(child);
  }
  result.type = "object";
  result.properties = strictProperties;
  result.required = Object.keys(strictProperties);
  result.additionalProperties = false;
  return result;
}

/** `schema` that also accepts `null`. */
export function makeNullable(schema: Schema): Schema {
  if (acceptsNull(schema)) return schema;
  const type = schema.type;
  if (typeof type === "string" || Array.isArray(type)) {
    const types = Array.isArray(type) ? [...type, "null"] : [type, "null"];
    const nullable: Schema = { ...schema, type: types };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  const { description, ...rest } = schema;
  return {
    anyOf: [rest, { type: "null" }],
    ...(typeof description === "string" ? { description } : {}),
  };
}

function acceptsNull(schema: Schema): boolean {
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  const anyOf = schema.anyOf;
  return Array.isArray(anyOf) && anyOf.some((child) => isSchema(child) && child.type === "null");
}

/**
 * Undoes the nullability `toStrictSchema` added: returns a copy of `value` in which each
 * property that is optional in the ORIGINAL `schema` and came back as `null` is removed, so the
 * arguments validate against the tool's own schema. Properties whose original schema accepts
 * `null` keep it. Recurses into nested objects and array items. Pure.
 */
export function removeNullOptionals(value: unknown, schema: Schema): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return isSchema(items) ? value.map((item) => removeNullOptionals(item, items)) : value;
  }
  if (!isSchema(value) || !isSchema(schema.properties)) return value;
  const properties = schema.properties;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const result: Schema = {};
  for (const [name, child] of Object.entries(value)) {
    const childSchema = properties[name];
    if (!isSchema(childSchema)) {
      result[name] = child;
      continue;
    }
    if (child === null && !required.has(name) && !acceptsNull(childSchema)) continue;
    result[name] = removeNullOptionals(child, childSchema);
  }
  return result;
}
