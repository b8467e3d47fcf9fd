/**
 * The coding tools: read, write, edit, bash, ls, grep, find. `createCodingTools` wires them to one
 * path policy, read-state and file queue, as a session needs; each `create*Tool` is exported for
 * callers that want a single tool or their own I/O.
 */
import type { AnyAgentTool } from "@gyre/agent";
import type { ReadDenyFilter } from "../permissions/read-deny.js";
import { createBackgroundShells } from "./background-shells.js";
import { createBashOutputTool, createKillShellTool } from "./background-shells-tools.js";
import { BASH_OUTPUT_DIR } from "./bash-output-dir.js";
import { type BashToolOptions, createBashTool } from "./bash-tool.js";
import { createEditTool } from "./edit-tool.js";
import { createFileQueue, type FileQueue } from "./file-queue.js";
import { createFindTool } from "./find-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createLsTool } from "./ls-tool.js";
import { createPathPolicy } from "./path-policy.js";
import { createReadState, type ReadState } from "./read-state.js";
import { createReadTool } from "./read-tool.js";
import { createNodeFileSystem, type ToolFileSystem } from "./tool-fs.js";
import { CODING_TOOL_NAMES, type CodingToolName } from "./tool-names.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "./truncate.js";
import { createWriteTool } from "./write-tool.js";

export {
  type BackgroundShells,
  type BackgroundShellsOptions,
  createBackgroundShells,
  type ShellInfo,
  type ShellState,
} from "./background-shells.js";
export { createBashOutputTool, createKillShellTool } from "./background-shells-tools.js";
export { type BashToolDetails, type BashToolOptions, createBashTool } from "./bash-tool.js";
export { createEditTool, type EditToolDetails, type EditToolOptions, prepareEditArguments } from "./edit-tool.js";
export { createFileQueue, type FileQueue } from "./file-queue.js";
export { createFindTool, type FindToolDetails, type FindToolOptions } from "./find-tool.js";
export { createGrepTool, type GrepToolDetails, type GrepToolOptions } from "./grep-tool.js";
export { createLsTool, type LsToolDetails, type LsToolOptions } from "./ls-tool.js";
export {
  createPathPolicy,
  isWithin,
  type PathPolicy,
  type PathPolicyOptions,
  type ResolvedPath,
} from "./path-policy.js";
export { createReadState, type FileVersion, type ReadState } from "./read-state.js";
export { createReadTool, type ReadToolDetails, type ReadToolOptions } from "./read-tool.js";
export { createSafeEnv, SECRET_ENV_NAME } from "./safe-env.js";
export { createNodeFileSystem, type ToolDirEntry, type ToolFileStat, type ToolFileSystem } from "./tool-fs.js";
export {
  CODING_TOOL_DESCRIPTIONS,
  CODING_TOOL_NAMES,
  type CodingToolName,
  DEFAULT_TOOL_NAMES,
  isCodingToolName,
} from "./tool-names.js";
export { createWriteTool, type WriteToolDetails, type WriteToolOptions } from "./write-tool.js";

export type CodingToolsOptions = {
  /** The workspace root: paths resolve against it, bash runs in it. */
  cwd: string;
  /** Directories outside the workspace the user allowed (`--allow-path`, `allowedPaths` setting). */
  allowedPaths?: readonly string[];
  /** Which tools to create, in this order. Default: all seven. */
  tools?: readonly CodingToolName[];
  fs?: ToolFileSystem;
  /** What `~` expands to. Default: the OS home directory. */
  homeDir?: string;
  /** Shared across tool sets when given; otherwise each set has its own. */
  readState?: ReadState;
  fileQueue?: FileQueue;
  /**
   * Passed to the bash tool (timeouts, shell, env, temp dir). Its `shells` are the background
   * shells; pass your own to end them (`dispose`), else they end with the process.
   */
  bash?: Omit<BashToolOptions, "cwd">;
  /** The rg binary for grep and find. Default: the one @vscode/ripgrep ships. */
  rgPath?: string;
  /** Files the `read(...)` deny rules refuse: grep, find and ls leave them out. */
  readDenied?: () => Promise<ReadDenyFilter | undefined>;
  /** write's content limit; keep it equal to the loop's `maxToolArgumentBytes`. Default 1 MiB, as the loop's. */
  maxWriteBytes?: number;
};

/**
 * Creates the coding tools sharing one path policy, read-state and per-file write queue. With
 * `bash` come `bash_output` and `kill_shell`, right after it, over the same background shells.
 */
export function createCodingTools(options: CodingToolsOptions): AnyAgentTool[] {
  const fs = options.fs ?? createNodeFileSystem();
  const tools = options.tools ?? CODING_TOOL_NAMES;
  const pathPolicy = createPathPolicy({
    cwd: options.cwd,
    // The bash tool's saved full outputs are for the model to read.
    allowedPaths: [...(options.allowedPaths ?? []), ...(tools.includes("bash") ? [BASH_OUTPUT_DIR] : [])],
    fs,
    homeDir: options.homeDir,
  });
  const readState = options.readState ?? createReadState();
  const fileQueue = options.fileQueue ?? createFileQueue();
  const shared = { cwd: options.cwd, fs, pathPolicy };
  const shells = tools.includes("bash")
    ? (options.bash?.shells ??
      createBackgroundShells({
        maxLines: options.bash?.maxLines ?? DEFAULT_MAX_LINES,
        maxBytes: options.bash?.maxBytes ?? DEFAULT_MAX_BYTES,
        killGraceMs: options.bash?.killGraceMs ?? 2000,
      }))
    : undefined;
  const create = (name: CodingToolName): AnyAgentTool => {
    switch (name) {
      case "read":
        return createReadTool({ ...shared, readState });
      case "write":
        return createWriteTool({
          ...shared,
          readState,
          fileQueue,
          ...(options.maxWriteBytes ? { maxBytes: options.maxWriteBytes } : {}),
        });
      case "edit":
        return createEditTool({ ...shared, readState, fileQueue });
      case "bash":
        return createBashTool({ ...options.bash, cwd: options.cwd, ...(shells ? { shells } : {}) });
      case "ls":
        return createLsTool({ ...shared, readDenied: options.readDenied });
      case "grep":
        return createGrepTool({ ...shared, rgPath: options.rgPath, readDenied: options.readDenied });
      case "find":
        return createFindTool({ ...shared, rgPath: options.rgPath, readDenied: options.readDenied });
      default: {
        const unknown: never = name;
        throw new Error(`Unknown coding tool "${String(unknown)}". Known tools: ${CODING_TOOL_NAMES.join(", ")}.`);
      }
    }
  };
  return tools.flatMap((name) =>
    name === "bash" && shells
      ? [create(name), createBashOutputTool(shells), createKillShellTool(shells)]
      : [create(name)],
  );
}
