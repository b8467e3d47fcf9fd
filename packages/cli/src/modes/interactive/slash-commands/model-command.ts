import type { Model } from "@gyre/ai";
import { listAvailableModels, withStartupEndpoint } from "../../model-cycle.js";
import { formatTokens } from "../components/footer-view.js";
import type { SlashCommand } from "./types.js";

/** /model [provider/id]: switches the model, from the argument or a picker. */
export const modelCommand: SlashCommand = {
  name: "model",
  description: "Pick the model",
  argumentHint: "[provider/id]",
  run: async (args, context) => {
    const current = context.session.state.model;
    const models = listAvailableModels(current);
    const key = (model: Model) => `${model.provider}/${model.id}`;
    let chosen = args.trim();
    if (!chosen) {
      const items = models.map((model) => ({
        value: key(model),
        label: key(model),
        description: `${model.name}${model.reasoning ? " · thinking" : ""} · ${formatTokens(model.contextWindow)} context`,
      }));
      chosen = (await context.select("Model", items, key(current))) ?? "";
      if (!chosen) return;
    }
    const model = models.find((candidate) => key(candidate) === chosen || candidate.id === chosen);
    if (!model) return context.notify(`No configured model "${chosen}"; run /model to pick from the list.`, "error");
    await context.session.submit({
      type: "set_model",
      model: withStartupEndpoint(model, context.session.info.startupModel),
    });
    context.refreshInfo();
    context.notify(`Model: ${key(model)}`);
  },
};
