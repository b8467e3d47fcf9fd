/**
 * MCP prompts as slash commands: `/mcp__<server>__<prompt> args` becomes the prompt's messages as
 * the user's text, in every mode (the input resolver runs for print, JSON, RPC and the TUI).
 * Arguments are `key=value` words, or positional words filling the prompt's arguments in order.
 */
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { splitArguments } from "../prompt-templates/prompt-templates.js";
import { stripControlCharacters, stripToOneLine } from "./convert-result.js";
import type { McpManager } from "./mcp-manager.js";
import { sanitizeNamePart } from "./mcp-tool.js";

/**
 * The text `/<name> <rest>` expands to, or undefined when `name` is no MCP prompt of a connected
 * server. Throws an Error naming the missing arguments when a required one is not given.
 */
export async function expandMcpPrompt(manager: McpManager, name: string, rest: string): Promise<string | undefined> {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  if (!match) return undefined;
  const [, serverPart, promptPart] = match;
  const connection = manager
    .statuses()
    .map((status) => manager.connection(status.name))
    .find((candidate) => candidate && sanitizeNamePart(candidate.name) === serverPart);
  await connection?.ready;
  const client = connection?.client();
  if (!client?.getServerCapabilities()?.prompts) return undefined;
  const { prompts } = await client.listPrompts();
  const prompt = prompts.find((candidate) => sanitizeNamePart(candidate.name) === promptPart);
  if (!prompt) return undefined;
  const declared = prompt.arguments ?? [];
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of splitArguments(rest)) {
    const pair = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(word);
    if (pair?.[1] && declared.some((argument) => argument.name === pair[1])) values[pair[1]] = pair[2] ?? "";
    else positional.push(word);
  }
  for (const argument of declared) {
    if (values[argument.name] === undefined && positional.length > 0) values[argument.name] = positional.shift() ?? "";
  }
  const missing = declared
    .filter((argument) => argument.required && values[argument.name] === undefined)
    .map((argument) => argument.name);
  if (missing.length > 0) {
    // Argument names are the server's text, shown to the user as they are.
    const usage = declared.map((argument) => `${stripToOneLine(argument.name)}=…`).join(" ");
    throw new Error(`/${name} needs ${missing.map(stripToOneLine).join(", ")}: /${name} ${usage}`);
  }
  return formatPromptMessages(await client.getPrompt({ name: prompt.name, arguments: values }));
}

/**
 * The prompt's messages as one text: a lone user message as it is, several with their roles;
 * without control characters (the text is sent as the user's and shown in the terminal).
 */
function formatPromptMessages(result: GetPromptResult): string {
  const texts = result.messages.map((message) => {
    const content = message.content;
    const text =
      content.type === "text"
        ? content.text
        : content.type === "resource"
          ? `Resource ${content.resource.uri}:\n${"text" in content.resource ? content.resource.text : "(binary)"}`
          : `[${content.type} content not shown]`;
    return { role: message.role, text };
  });
  if (texts.length === 1 && texts[0]?.role === "user") return stripControlCharacters(texts[0].text);
  return stripControlCharacters(texts.map((entry) => `${entry.role}: ${entry.text}`).join("\n\n"));
}
