import type { AnyAgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import type { ExtensionHost, ExtensionRunner, LoadedExtension } from "./extension-runner.js";
import type { ExtensionAPI, ExtensionEventName } from "./types.js";

const commandName = /^[A-Za-z0-9][\w:-]*$/;
const flagName = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The API object one extension receives. Registrations land in `extension`; session actions
 * (`appendEntry`, `sendMessage`, …) go through the runner's host and throw a sentence saying
 * to call them from a handler when used while the extension loads. `reservedFlags` are the
 * host's own flag names (without dashes), which `registerFlag` refuses.
 */
export function createExtensionApi(
  runner: ExtensionRunner,
  extension: LoadedExtension,
  reservedFlags: ReadonlySet<string>,
): ExtensionAPI {
  const host = (action: string): ExtensionHost => {
    const bound = runner.boundHost;
    if (!bound)
      throw new Error(
        `${action} is not available while the extension loads; call it from an event handler or command.`,
      );
    return bound;
  };
  return {
    path: extension.path,
    cwd: runner.cwd,
    mode: runner.mode,
    Type,
    ui: runner.createUserInterface(extension),
    on(event, handler) {
      if (typeof handler !== "function") throw new Error(`api.on("${event}") needs a handler function.`);
      const name = event as ExtensionEventName;
      const list = extension.handlers.get(name) ?? [];
      list.push(handler as (event: unknown, context: unknown) => unknown);
      extension.handlers.set(name, list);
    },
    registerTool(tool) {
      const candidate = tool as Partial<AnyAgentTool>;
      if (!candidate || typeof candidate.name !== "string" || !/^[\w-]{1,64}$/.test(candidate.name))
        throw new Error("registerTool needs a tool whose name is 1-64 letters, digits, _ or -.");
      if (typeof candidate.execute !== "function" || typeof candidate.parameters !== "object")
        throw new Error(`registerTool("${candidate.name}") needs parameters (a JSON Schema) and an execute function.`);
      const full = {
        ...tool,
        label: tool.label ?? tool.name,
        description: tool.description ?? "",
      } as AnyAgentTool;
      extension.tools = [...extension.tools.filter((existing) => existing.name !== full.name), full];
    },
    registerCommand(name, command) {
      if (!commandName.test(name))
        throw new Error(`registerCommand("${name}"): a name is letters, digits, _, - or : (without the slash).`);
      if (typeof command?.handler !== "function") throw new Error(`registerCommand("${name}") needs a handler.`);
      extension.commands.set(name, command);
    },
    registerFlag(name, flag) {
      if (!flagName.test(name))
        throw new Error(`registerFlag("${name}"): a name is lower-case letters, digits and - (without the dashes).`);
      if (reservedFlags.has(name)) throw new Error(`registerFlag("${name}"): --${name} is one of gyre's own flags.`);
      if (flag?.type !== "boolean" && flag?.type !== "string")
        throw new Error(`registerFlag("${name}") needs type "boolean" or "string".`);
      extension.flags.set(name, flag);
    },
    getFlag: (name) => runner.getFlag(name),
    addSystemPrompt(text) {
      if (typeof text === "string" && text.trim()) extension.systemPrompts.push(text.trim());
    },
    appendEntry: (customType, data) => host("appendEntry").appendEntry(customType, data),
    getEntries: (customType) => runner.boundHost?.getEntries(customType) ?? [],
    sendMessage: async (message, options = {}) => host("sendMessage").sendMessage(message, options),
  };
}
