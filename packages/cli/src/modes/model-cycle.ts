/**
 * The model cycle list (`--models`) and the quick switches over it, shared by the TUI (Ctrl+P,
 * Alt+T) and RPC (`cycle_model`); print and JSON runs only check the patterns.
 */
import { getModels, getProviders, type Model, type ThinkingLevel } from "@gyre/ai";
import type { AgentSession } from "../core/agent-session.js";
import { resolveApiKey } from "../core/config/resolve-api-key.js";
import { CliError } from "../core/errors.js";

/** Every configured model (built-in and models.json), the current one first if it is not listed. */
export function listAvailableModels(current: Model): Model[] {
  const models = getProviders().flatMap((provider) => getModels(provider.name));
  const listed = models.some((model) => model.provider === current.provider && model.id === current.id);
  return listed ? models : [current, ...models];
}

/**
 * The models that can answer now: the current provider's, those of providers whose key is in
 * `env`, and those of `signedIn` providers (`gyre login`). What `/model` offers and Ctrl+P cycles through.
 */
export function listUsableModels(current: Model, env: NodeJS.ProcessEnv, signedIn: readonly string[] = []): Model[] {
  return listAvailableModels(current).filter(
    (model) =>
      model.provider === current.provider ||
      signedIn.includes(model.provider) ||
      resolveApiKey({ provider: model.provider, env }),
  );
}

/**
 * A model of the provider gyre started with keeps the start-up base URL (a `--base-url` or
 * env override applies to the whole provider, not just the first model).
 */
export function withStartupEndpoint(model: Model, startup: Model): Model {
  if (model.provider !== startup.provider || model.baseUrl === startup.baseUrl) return model;
  return { ...model, baseUrl: startup.baseUrl };
}

/** One model of the cycle list, with the thinking level its `--models` entry asked for. */
export type ScopedModel = { model: Model; thinkingLevel?: ThinkingLevel };

const LEVELS: readonly ThinkingLevel[] = ["off", "low", "medium", "high"];

const keyOf = (model: Model) => `${model.provider}/${model.id}`;

/** `*` and `?` wildcards, case-insensitive, over the whole text. */
function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "i");
}

/**
 * The models `--models a,b,c` names, in the order given, each once. An entry is `pattern` or
 * `pattern:level`; a pattern with `*` or `?` is a glob over `provider/id` and over `id`;
 * otherwise an exact `provider/id` or `id`, else every model whose `provider/id` contains it.
 * Throws a bad-usage `CliError` for an entry that matches nothing or a level that is not one.
 */
export function resolveModelScope(patterns: readonly string[], models: readonly Model[]): ScopedModel[] {
  const scope: ScopedModel[] = [];
  for (const entry of patterns) {
    const split = /^(.*):(off|low|medium|high)$/i.exec(entry);
    const pattern = (split ? split[1] : entry)?.trim() ?? "";
    const matched = matchPattern(pattern, models);
    if (matched.length === 0 && !split && /:[a-z]+$/i.test(entry))
      throw new CliError(
        "bad_usage",
        `--models entry "${entry}" has an unknown thinking level; use off, low, medium or high after the colon.`,
      );
    if (matched.length === 0)
      throw new CliError(
        "bad_usage",
        `No configured model matches "${pattern}" in --models; run gyre --list-models to see them.`,
      );
    for (const model of matched) {
      if (scope.some((item) => keyOf(item.model) === keyOf(model))) continue;
      scope.push({ model, ...(split ? { thinkingLevel: (split[2] as string).toLowerCase() as ThinkingLevel } : {}) });
    }
  }
  return scope;
}

function matchPattern(pattern: string, models: readonly Model[]): Model[] {
  if (/[*?]/.test(pattern)) {
    const glob = globToRegExp(pattern);
    return models.filter((model) => glob.test(keyOf(model)) || glob.test(model.id));
  }
  const lower = pattern.toLowerCase();
  const exact = models.filter((model) => keyOf(model).toLowerCase() === lower || model.id.toLowerCase() === lower);
  return exact.length > 0 ? exact.slice(0, 1) : models.filter((model) => keyOf(model).toLowerCase().includes(lower));
}

/**
 * The quick switches of the TUI: the next or previous model of the cycle list (`--models`, else
 * every model of the current provider and of providers with a key), and the next thinking level.
 * Each returns the line to show.
 */
export class QuickSwitch {
  constructor(
    private readonly session: AgentSession,
    private readonly options: {
      startupModel: Model;
      scope: readonly ScopedModel[] | undefined;
      env: NodeJS.ProcessEnv;
    },
  ) {}

  /** The models the cycle goes through, the current one included. */
  candidates(): ScopedModel[] {
    if (this.options.scope && this.options.scope.length > 0) return [...this.options.scope];
    const current = this.session.state.model;
    return listUsableModels(current, this.options.env).map((model) => ({ model }));
  }

  /** The line to show after `switchModel`. */
  async cycleModel(direction: 1 | -1): Promise<string> {
    const result = await this.switchModel(direction);
    if (!result.switched) return result.problem;
    const thinking = result.switched.reasoning ? ` · thinking ${this.session.state.thinkingLevel}` : "";
    return `Model: ${keyOf(result.switched)}${thinking}`;
  }

  /**
   * Switches to the next (1) or previous (-1) model of the cycle list, with the thinking level
   * its entry asked for; or says, in one sentence, why there is none to switch to.
   */
  async switchModel(
    direction: 1 | -1,
  ): Promise<{ switched: Model; problem?: undefined } | { switched?: undefined; problem: string }> {
    const list = this.candidates();
    const current = keyOf(this.session.state.model);
    if (list.length < 2 && list.some((item) => keyOf(item.model) === current))
      return { problem: `Only one model to cycle through (${current}); list more with --models a,b,c.` };
    const at = list.findIndex((item) => keyOf(item.model) === current);
    const next = list[(at + direction + list.length) % list.length] ?? list[0];
    if (!next) return { problem: "No model to switch to; configure one in models.json or pass --models." };
    await this.session.submit({ type: "set_model", model: withStartupEndpoint(next.model, this.options.startupModel) });
    if (next.thinkingLevel && next.thinkingLevel !== this.session.state.thinkingLevel)
      await this.session.submit({ type: "set_thinking", level: next.thinkingLevel });
    return { switched: next.model };
  }

  async cycleThinking(): Promise<string> {
    const model = this.session.state.model;
    if (!model.reasoning) return `${model.id} does not support thinking; the level stays off.`;
    const at = LEVELS.indexOf(this.session.state.thinkingLevel);
    const next = LEVELS[(at + 1) % LEVELS.length] ?? "off";
    await this.session.submit({ type: "set_thinking", level: next });
    return `Thinking level: ${next}`;
  }
}
