import type { CliArgs } from "./args.js";
import type { RuntimeConfig, SessionChoice } from "./core/runtime-config.js";
import { isBuiltInToolName } from "./core/tools/tool-names.js";

/** The run the flags ask for, as the plain data core takes. */
export function toRuntimeConfig(args: CliArgs): RuntimeConfig {
  return {
    mode: args.mode,
    ...(args.provider !== undefined ? { provider: args.provider } : {}),
    ...(args.model !== undefined ? { model: args.model } : {}),
    ...(args.baseUrl !== undefined ? { baseUrl: args.baseUrl } : {}),
    ...(args.apiKey !== undefined ? { apiKey: args.apiKey } : {}),
    ...(args.apiKeyFile !== undefined ? { apiKeyFile: args.apiKeyFile } : {}),
    ...(args.thinking !== undefined ? { thinking: args.thinking } : {}),
    ...(args.noTools ? { tools: "none" as const } : args.tools ? { tools: args.tools.filter(isBuiltInToolName) } : {}),
    ...(args.systemPrompt !== undefined ? { systemPrompt: args.systemPrompt } : {}),
    ...(args.appendSystemPrompt !== undefined ? { appendSystemPrompt: args.appendSystemPrompt } : {}),
    budgets: {
      ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}),
      ...(args.maxCost !== undefined ? { maxCostUsd: args.maxCost } : {}),
    },
    session: sessionChoiceOf(args),
    extensions: { paths: args.extensions, discover: !args.noExtensions },
    allowPaths: args.allowPaths,
    trust: args.trust,
    ...(args.claudeCompat ? { claudeCompat: true } : {}),
    mcp: { configFiles: args.mcpConfigs, enabled: !args.noMcp },
    ...(args.fauxScript !== undefined ? { fauxScript: args.fauxScript } : {}),
    ...(args.sandbox !== undefined ? { sandbox: args.sandbox } : {}),
    ...(args.approval !== undefined ? { approval: args.approval } : {}),
    allowNetwork: args.allowNetwork,
    webSearch: args.webSearch,
    plan: args.plan,
  };
}

function sessionChoiceOf(args: CliArgs): SessionChoice {
  if (args.noSession) return { kind: "memory" };
  if (args.session) return { kind: "open", pathOrId: args.session, fork: args.fork };
  if (args.continueSession) return { kind: "continue", fork: args.fork };
  return { kind: "new" };
}
