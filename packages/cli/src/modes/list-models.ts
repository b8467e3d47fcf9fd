import type { Writable } from "node:stream";
import { getModels, getProviders } from "@gyre/ai";
import { loadModelsConfig } from "../core/config/models-config.js";
import { getGyreHome } from "../core/config/paths.js";

/** `--list-models`: every configured provider with its models, limits and prices. Exit code 0, or 2 for a broken models.json. */
export async function runListModels(stdout: Writable): Promise<number> {
  const { registerProvider } = await import("@gyre/ai");
  try {
    const { providers, warnings } = await loadModelsConfig(getGyreHome());
    for (const custom of providers) registerProvider(custom.info, custom.models);
    for (const warning of warnings) process.stderr.write(`gyre: ${warning}\n`);
  } catch (error) {
    process.stderr.write(`gyre: ${(error as Error).message}\n`);
    return 2;
  }
  const rows: string[][] = [["provider", "model", "context", "max out", "$/M in", "$/M out", "key"]];
  for (const provider of getProviders()) {
    const key = provider.apiKeyEnv ?? "(none)";
    const models = getModels(provider.name);
    if (models.length === 0) rows.push([provider.name, "(any id)", "", "", "", "", key]);
    for (const model of models) {
      rows.push([
        provider.name,
        model.id,
        String(model.contextWindow),
        String(model.maxTokens),
        String(model.cost.input),
        String(model.cost.output),
        key,
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd()}\n`,
    );
  return 0;
}
