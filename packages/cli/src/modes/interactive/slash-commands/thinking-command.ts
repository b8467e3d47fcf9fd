import type { ThinkingLevel } from "@gyre/ai";
import type { SlashCommand } from "./types.js";

const levels: ThinkingLevel[] = ["off", "low", "medium", "high"];

function isLevel(value: string): value is ThinkingLevel {
  return (levels as string[]).includes(value);
}

/** /thinking [level]: sets the thinking level, from the argument or a picker. */
export const thinkingCommand: SlashCommand = {
  name: "thinking",
  description: "Set the thinking level (off, low, medium, high)",
  argumentHint: "[level]",
  run: async (args, context) => {
    const current = context.session.state.thinkingLevel;
    const chosen =
      args.trim() ||
      (await context.select(
        "Thinking level",
        levels.map((level) => ({ value: level, label: level, description: level === current ? "current" : "" })),
        current,
      ));
    if (chosen === undefined) return;
    if (!isLevel(chosen))
      return context.notify(`Unknown thinking level "${chosen}"; use one of ${levels.join(", ")}.`, "error");
    await context.session.submit({ type: "set_thinking", level: chosen });
    context.refreshInfo();
    const model = context.session.state.model;
    const note = chosen !== "off" && !model.reasoning ? ` (${model.id} does not report thinking support)` : "";
    context.notify(`Thinking level: ${chosen}${note}`);
  },
};
