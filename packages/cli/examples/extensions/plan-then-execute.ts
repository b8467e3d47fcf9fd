/**
 * Plan, then execute: `/plan <task>` first runs the agent read-only (write, edit and bash are
 * blocked) to produce a numbered plan, then asks whether to carry it out. `--plan-all` makes every
 * prompt of the run start in planning mode. In print mode nobody can say yes: you get the plan.
 *
 *   gyre -e packages/cli/examples/extensions/plan-then-execute.ts
 *   > /plan add a --json flag to the export command
 */
import type { ExtensionAPI } from "../../src/core/extensions/types.js";

const mutatingTools = new Set(["write", "edit", "bash"]);

export default function planThenExecute(api: ExtensionAPI): void {
  let planning = false;

  api.registerFlag("plan-all", { type: "boolean", description: "Start every prompt in planning mode" });

  api.on("before_agent_start", (event) => {
    if (!planning && api.getFlag("plan-all") !== true) return undefined;
    planning = true;
    return {
      systemPrompt: `${event.systemPrompt}\n\n# Planning mode\nDo not change anything yet. Read what you need, then answer with a numbered plan of small steps.`,
    };
  });

  api.on("tool_call", (event) => {
    if (planning && mutatingTools.has(event.toolName)) {
      return { block: true, reason: `Planning mode: ${event.toolName} is not allowed yet. Finish the plan first.` };
    }
    return undefined;
  });

  api.registerCommand("plan", {
    description: "Plan a task read-only, then ask before carrying it out",
    handler: async (task, context) => {
      if (!task) {
        context.ui.notify("Usage: /plan <task>", "warning");
        return;
      }
      planning = true;
      await api.sendMessage(`Make a plan for this task: ${task}`);
      planning = false;
      const execute = await context.ui.confirm({ title: "Carry out the plan?" });
      if (!execute) {
        context.ui.notify("The plan was not carried out.", "info");
        return;
      }
      await api.sendMessage("Carry out the plan above, step by step.");
    },
  });
}
