import type { AgentSession } from "../../../core/agent-session.js";

/** Where a slash command that is not built in comes from. */
export type RuntimeCommandKind = "extension" | "template" | "skill";

/** A slash command the runtime brings: an extension command, a prompt template or a skill. */
export type RuntimeCommand = { name: string; description: string; kind: RuntimeCommandKind };

/**
 * The slash commands of the runtime's extensions, templates and skills, in the order the session
 * resolves them (an extension command wins over a template of the same name). Built-in names
 * are left out: the built-in command runs.
 */
export function listRuntimeCommands(session: AgentSession, builtIn: ReadonlySet<string>): RuntimeCommand[] {
  const seen = new Set(builtIn);
  const commands: RuntimeCommand[] = [];
  const add = (name: string, description: string, kind: RuntimeCommandKind) => {
    if (seen.has(name)) return;
    seen.add(name);
    commands.push({ name, description: oneLine(description), kind });
  };
  for (const { name, description } of session.extensionCommands()) add(name, description, "extension");
  const { templates, skills } = session.info;
  for (const template of templates) add(template.name, template.description || "prompt template", "template");
  for (const skill of skills) add(`skill:${skill.name}`, skill.description, "skill");
  return commands;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
