import { getProvider, type Model } from "@gyre/ai";
import { readAuthFile } from "../../../core/auth/auth-store.js";
import { listAvailableModels, listUsableModels, withStartupEndpoint } from "../../model-cycle.js";
import { formatTokens } from "../components/footer-view.js";
import type { SlashCommand } from "./types.js";

const key = (model: Model) => `${model.provider}/${model.id}`;

/** "$3/$15 per M tokens" (input/output), or nothing for a model without a price. */
function describePrice(model: Model): string {
  const { input, output } = model.cost;
  return input > 0 || output > 0 ? ` · $${input}/$${output} per M tokens` : "";
}

/**
 * /model [provider/id]: switches the model, from the argument or a picker. The picker offers the
 * models that can answer now (see `listUsableModels`), each with its price.
 */
export const modelCommand: SlashCommand = {
  name: "model",
  description: "Pick the model",
  argumentHint: "[provider/id]",
  run: async (args, context) => {
    const current = context.session.state.model;
    const signedIn = Object.keys(await readAuthFile(context.session.info.gyreHome).catch(() => ({})));
    const usable = listUsableModels(current, process.env, signedIn);
    let chosen = args.trim();
    if (!chosen) {
      const items = usable.map((model) => ({
        value: key(model),
        label: key(model),
        description: `${model.name}${model.reasoning ? " · thinking" : ""} · ${formatTokens(model.contextWindow)} context${describePrice(model)}`,
      }));
      chosen = (await context.select("Model (providers with a key set or signed in)", items, key(current))) ?? "";
      if (!chosen) return;
    }
    const matches = (candidate: Model) => key(candidate) === chosen || candidate.id === chosen;
    const model = usable.find(matches);
    if (!model) {
      const keyless = listAvailableModels(current).find(matches);
      const variable = keyless && getProvider(keyless.provider)?.apiKeyEnv;
      return context.notify(
        variable
          ? `${key(keyless)} needs ${variable}; set it before starting gyre, or pick another model with /model.`
          : `No configured model "${chosen}"; run /model to pick from the list.`,
        "error",
      );
    }
    await context.session.submit({
      type: "set_model",
      model: withStartupEndpoint(model, context.session.info.startupModel),
    });
    context.refreshInfo();
    context.notify(`Model: ${key(model)}`);
  },
};
