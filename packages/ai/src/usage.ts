import type { Model, Usage } from "./types.js";

/** A zeroed usage record. */
export function createEmptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Fills `usage.cost` (USD) from the model's per-million prices and sets `totalTokens`. Mutates and returns `usage`. */
export function calculateCost(model: Model, usage: Usage): Usage {
  const perToken = (price: number, tokens: number) => (price / 1_000_000) * tokens;
  usage.cost.input = perToken(model.cost.input, usage.input);
  usage.cost.output = perToken(model.cost.output, usage.output);
  usage.cost.cacheRead = perToken(model.cost.cacheRead, usage.cacheRead);
  usage.cost.cacheWrite = perToken(model.cost.cacheWrite, usage.cacheWrite);
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  return usage;
}
