/**
 * Answers an MCP server's elicitation (a server asking the user for input mid-call) through the
 * mode's UserInterface: a dialog in the TUI, `ui_request`s to the RPC client, and a decline in
 * print and JSON mode, where nobody can answer.
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { UserInterface } from "../user-interface.js";

type FieldSchema = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  default?: unknown;
};

/**
 * Asks the user whether to answer, then one question per requested field (a choice for booleans
 * and enums, free text otherwise, numbers checked). Declines when `ui` cannot ask or the request
 * is a URL elicitation; cancels when the user dismisses a question or gives a bad number.
 */
export async function elicitWithUserInterface(
  ui: UserInterface,
  server: string,
  request: ElicitRequest["params"],
  signal: AbortSignal,
): Promise<ElicitResult> {
  if (!ui.interactive || request.mode === "url") return { action: "decline" };
  const agreed = await ui.confirm({ title: `MCP server "${server}" asks for input`, message: request.message, signal });
  if (!agreed) return { action: "decline" };
  const properties = (request.requestedSchema?.properties ?? {}) as Record<string, FieldSchema>;
  const content: Record<string, string | number | boolean> = {};
  for (const [key, field] of Object.entries(properties)) {
    const answer = await askField(ui, key, field, signal);
    if (answer === undefined) return { action: "cancel" };
    content[key] = answer;
  }
  return { action: "accept", content };
}

async function askField(
  ui: UserInterface,
  key: string,
  field: FieldSchema,
  signal: AbortSignal,
): Promise<string | number | boolean | undefined> {
  const title = `${field.title ?? key}${field.description ? ` (${field.description})` : ""}`;
  if (field.type === "boolean") {
    const choice = await ui.select({ title, options: ["yes", "no"], signal });
    return choice === undefined ? undefined : choice === "yes";
  }
  const choices = field.enum?.map(String) ?? field.oneOf?.map((option) => String(option.const));
  if (choices && choices.length > 0) return await ui.select({ title, options: choices, signal });
  const text = await ui.input({
    title,
    ...(field.default !== undefined ? { placeholder: String(field.default) } : {}),
    signal,
  });
  if (text === undefined) return undefined;
  if (field.type !== "number" && field.type !== "integer") return text;
  const number = Number(text);
  const valid = text.trim() !== "" && Number.isFinite(number) && (field.type === "number" || Number.isInteger(number));
  return valid ? number : undefined;
}
