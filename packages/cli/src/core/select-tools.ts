// Which built-in tools a run gets, and the tools themselves; create-runtime.ts calls these.
import type { AnyAgentTool } from "@gyre/agent";
import type { Settings } from "./config/settings.js";
import type { RuntimeResources } from "./extensions/load-runtime-resources.js";
import type { Safety } from "./permissions/create-safety.js";
import type { RuntimeConfig } from "./runtime-config.js";
import { type BackgroundShells, createCodingTools } from "./tools/index.js";
import type { ToolFileSystem } from "./tools/tool-fs.js";
import {
  type BuiltInToolName,
  DEFAULT_HARNESS_TOOL_NAMES,
  DEFAULT_TOOL_NAMES,
  isBuiltInToolName,
  isCodingToolName,
} from "./tools/tool-names.js";

/** What the coding tools are built on: where they work, the sandbox, background shells, readable paths. */
export type ToolDeps = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  safety: Safety;
  shells: BackgroundShells;
  allowPaths: readonly string[];
  fs?: ToolFileSystem;
};

/** The tool names of a run: the config's, else settings', else the defaults. */
export function selectToolNames(config: RuntimeConfig, settings: Settings): readonly BuiltInToolName[] {
  if (config.tools === "none") return [];
  return (
    config.tools ?? settings.tools?.filter(isBuiltInToolName) ?? [...DEFAULT_TOOL_NAMES, ...DEFAULT_HARNESS_TOOL_NAMES]
  );
}

/** The built-in tools a run gets: the config's, else settings', else the defaults; "none" for none. */
export function selectTools(
  names: readonly BuiltInToolName[],
  settings: Settings,
  resources: RuntimeResources,
  where: ToolDeps,
): AnyAgentTool[] {
  const coding = names.filter(isCodingToolName);
  if (coding.length === 0) return [];
  return createCodingTools({
    cwd: where.cwd,
    tools: coding,
    ...(where.fs ? { fs: where.fs } : {}),
    allowedPaths: [...where.allowPaths, ...(settings.allowedPaths ?? []), ...resources.readablePaths],
    bash: {
      sandbox: where.safety.sandbox,
      shells: where.shells,
      escalation: "gated",
      env: where.env,
      passEnv: settings.sandbox?.passEnv ?? [],
      ...(settings.bashTimeoutMs ? { defaultTimeoutSeconds: settings.bashTimeoutMs / 1000 } : {}),
    },
    ...(settings.maxToolArgumentBytes ? { maxWriteBytes: settings.maxToolArgumentBytes } : {}),
    readDenied: () => where.safety.readDenied(),
  });
}
