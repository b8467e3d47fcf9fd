/**
 * Answers an MCP server's elicitation (a server asking the user for input mid-call) through the
 * mode's UserInterface: a dialog in the TUI, `ui_request`s to the RPC client. In print and JSON
 * mode nobody can answer: the server's `elicitation` setting decides (docs/mcp.md): a decline,
 * or an acceptance with the defaults the requested schema gives.
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { UserInterface } from "../user-interface.js";

type FieldSchema = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown }[] };
  default?: unknown;
};

type Answer = string | number | boolean | string[];

/**
 * Asks the user whether to answer, then one question per requested field (a choice for booleans
 * and enums, a comma-separated list for multi-selects, free text otherwise, numbers checked; an
 * empty answer takes the default or leaves an optional field out). Declines when `ui` cannot ask
 * or the request is a URL elicitation; cancels when the user dismisses a question or an answer
 * does not fit its field.
 */
export async function elicitWithUserInterface(
  ui: UserInterface | undefined,
  server: string,
  request: ElicitRequest["params"],
  signal: AbortSignal,
  withoutUser: "decline" | "defaults" = "decline",
): Promise<ElicitResult> {
  if (request.mode === "url") return { action: "decline" };
  if (!ui?.interactive) return withoutUser === "defaults" ? acceptDefaults(request) : { action: "decline" };
  const agreed = await ui.confirm({ title: `MCP server "${server}" asks for input`, message: request.message, signal });
  if (!agreed) return { action: "decline" };
  const schema = request.requestedSchema as
    | { properties?: Record<string, FieldSchema>; required?: string[] }
    | undefined;
  const required = new Set(schema?.required ?? []);
  const content: Record<string, Answer> = {};
  for (const [key, field] of Object.entries(schema?.properties ?? {})) {
    const answer = await askField(ui, key, field, signal);
    if (answer === "invalid") return { action: "cancel" };
    if (answer === "empty") {
      if (field.default !== undefined) content[key] = field.default as Answer;
      else if (required.has(key)) return { action: "cancel" };
      continue;
    }
    content[key] = answer;
  }
  return { action: "accept", content };
}

/**
 * Accepts with every default of the requested schema (SEP-1034: defaults stand for the answer
 * the user did not change); declines when a required field has no default.
 */
export function acceptDefaults(request: ElicitRequest["params"]): ElicitResult {
  if (request.mode === "url") return { action: "decline" };
  const schema = request.requestedSchema as
    | { properties?: Record<string, FieldSchema>; required?: string[] }
    | undefined;
  const content: Record<string, Answer> = {};
  for (const [key, field] of Object.entries(schema?.properties ?? {}))
    if (field.default !== undefined) content[key] = field.default as Answer;
  if ((schema?.required ?? []).some((key) => !(key in content))) return { action: "decline" };
  return { action: "accept", content };
}

async function askField(
  ui: UserInterface,
  key: string,
  field: FieldSchema,
  signal: AbortSignal,
): Promise<Answer | "empty" | "invalid"> {
  const title = `${field.title ?? key}${field.description ? ` (${field.description})` : ""}`;
  if (field.type === "boolean") {
    const choice = await ui.select({ title, options: ["yes", "no"], signal });
    return choice === undefined ? "invalid" : choice === "yes";
  }
  const choices = field.enum?.map(String) ?? field.oneOf?.map((option) => String(option.const));
  if (choices && choices.length > 0) return (await ui.select({ title, options: choices, signal })) ?? "invalid";
  const placeholder = field.default !== undefined ? { placeholder: String(field.default) } : {};
  if (field.type === "array") {
    const options = field.items?.enum?.map(String) ?? field.items?.anyOf?.map((option) => String(option.const)) ?? [];
    const text = await ui.input({
      title: `${title}: comma-separated${options.length ? `, from ${options.join(", ")}` : ""}`,
      ...placeholder,
      signal,
    });
    if (text === undefined) return "invalid";
    const picked = text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    if (picked.length === 0) return "empty";
    return options.length === 0 || picked.every((item) => options.includes(item)) ? picked : "invalid";
  }
  const text = await ui.input({ title, ...placeholder, signal });
  if (text === undefined) return "invalid";
  if (!text.trim()) return "empty";
  if (field.type !== "number" && field.type !== "integer") return text;
  const number = Number(text);
  return Number.isFinite(number) && (field.type === "number" || Number.isInteger(number)) ? number : "invalid";
}
