import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describeServerConfig, parseServerConfig, projectMcpConfigPath, readMcpConfigFile } from "./mcp/mcp-config.js";
import type { UserInterface } from "./user-interface.js";

/** Trust decisions, remembered per canonical project path (with `fingerprintProject` of what it applies). */
type TrustFile = {
  projects: Record<
    string,
    {
      trustedAt: string;
      fingerprint?: string;
      /** Hash of the `.mcp.json` the user approved. */
      mcpFingerprint?: string;
    }
  >;
};

function trustFilePath(gyreHome: string): string {
  return join(gyreHome, "trusted-projects.json");
}

async function readTrustFile(gyreHome: string): Promise<TrustFile> {
  try {
    const parsed = JSON.parse(await readFile(trustFilePath(gyreHome), "utf8")) as TrustFile;
    return parsed && typeof parsed.projects === "object" ? parsed : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

/** The canonical path trust is keyed by (symlinks resolved). */
export async function canonicalProjectPath(cwd: string): Promise<string> {
  try {
    return await realpath(cwd);
  } catch {
    return cwd;
  }
}

/** Remembers that the user trusts the project at `cwd` (atomic write of the trust file). */
export async function trustProject(options: {
  gyreHome: string;
  cwd: string;
  fingerprint?: string;
  mcpFingerprint?: string;
}): Promise<void> {
  const file = await readTrustFile(options.gyreHome);
  file.projects[await canonicalProjectPath(options.cwd)] = {
    trustedAt: new Date().toISOString(),
    ...(options.fingerprint !== undefined ? { fingerprint: options.fingerprint } : {}),
    ...(options.mcpFingerprint !== undefined ? { mcpFingerprint: options.mcpFingerprint } : {}),
  };
  const path = trustFilePath(options.gyreHome);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}

/**
 * Moves a remembered trust from fingerprint `from` to `to` (the user's own edit of a context file,
 * `#` memory): only a record that holds `from` is updated, its `.mcp.json` approval kept.
 */
export async function carryTrustOver(options: { gyreHome: string; cwd: string; from: string; to: string }) {
  const record = (await readTrustFile(options.gyreHome)).projects[await canonicalProjectPath(options.cwd)];
  if (record?.fingerprint !== options.from) return;
  const mcp = record.mcpFingerprint !== undefined ? { mcpFingerprint: record.mcpFingerprint } : {};
  await trustProject({ gyreHome: options.gyreHome, cwd: options.cwd, fingerprint: options.to, ...mcp });
}

/** Whether the project is trusted, was never trusted, or was trusted before its configuration changed. */
export type ProjectTrustState = "trusted" | "untrusted" | "changed";

export async function getProjectTrustState(options: {
  gyreHome: string;
  cwd: string;
  fingerprint: string;
}): Promise<ProjectTrustState> {
  const file = await readTrustFile(options.gyreHome);
  const record = file.projects[await canonicalProjectPath(options.cwd)];
  if (!record) return "untrusted";
  if (record.fingerprint !== undefined && record.fingerprint !== options.fingerprint) return "changed";
  return "trusted";
}

/**
 * Decides whether the project's `.gyre/` settings, extensions and context files apply: `--trust`
 * trusts for this run; a remembered trust holds while none of them changed; else,
 * when a person can answer (`ask`), they are asked and a yes is remembered with the fingerprint.
 * Returns the decision and, when untrusted, a warning sentence for stderr (undefined if there
 * was nothing to trust).
 */
export async function decideProjectTrust(options: {
  gyreHome: string;
  cwd: string;
  /** `fingerprintProject` of the folder: `.gyre/` and the project's context files. */
  fingerprint: string;
  /** `--trust` was given. */
  trustFlag: boolean;
  /** Whether the project has anything trust would unlock (a `.gyre/` or `.claude/` folder, context files). */
  hasProjectConfig: boolean;
  /** Asks the user; given only where a person can answer before the run (interactive mode). */
  ui?: UserInterface;
}): Promise<{ trusted: boolean; warning?: string }> {
  if (options.trustFlag) return { trusted: true };
  const state = await getProjectTrustState(options);
  const mcp = await readProjectMcpServers(options.cwd);
  if (state === "trusted") return { trusted: true, ...(await confirmChangedMcpServers(options, mcp)) };
  if (!options.hasProjectConfig && mcp.servers.length === 0) return { trusted: false };
  if (options.ui?.interactive) {
    const yes = await options.ui.confirm({
      title: state === "changed" ? "This folder's gyre configuration changed. Trust it again?" : "Trust this folder?",
      message:
        (state === "changed"
          ? `Files in ${join(options.cwd, ".gyre")}, ${join(options.cwd, ".claude")} or its context files (AGENTS.md, CLAUDE.md) changed since you trusted ${options.cwd}. Settings widen what tools may touch, and extensions run code with your permissions.`
          : `${options.cwd} has its own gyre configuration (.gyre/ settings, prompts, extensions, MCP servers, a .claude/ setup, or context files). Extensions and MCP servers run code with your permissions; trust it only if you trust its authors.`) +
        formatServerList(mcp.servers),
    });
    if (yes) {
      await trustProject({ ...options, ...(mcp.fingerprint ? { mcpFingerprint: mcp.fingerprint } : {}) });
      return { trusted: true };
    }
  }
  const hasGyreFolder = await holdsGyreFiles(options.cwd);
  if (mcp.servers.length > 0 && !hasGyreFolder) {
    return { trusted: false, warning: describeHeldBackServers(mcp.names) };
  }
  if (!hasGyreFolder && state !== "changed") return { trusted: false };
  return {
    trusted: false,
    warning:
      state === "changed"
        ? "This folder's .gyre/ or .claude/ files or context files changed since it was trusted, so its .gyre/ settings, prompts, skills, extensions and context files were not loaded; pass --trust (or trust it again interactively) to use them."
        : "This folder's .gyre/ settings, prompts and extensions were not loaded because it is not trusted; pass --trust to use them.",
  };
}

type ProjectMcpServers = { servers: string[]; names: string[]; fingerprint?: string };

/**
 * Whether the project's `.mcp.json` may start servers in this run: the folder is trusted for
 * this run (`trustFlag`), or its trust record holds the hash of this very file (the user saw
 * these servers and said yes). A new or changed `.mcp.json` starts nothing until approved.
 */
export async function isProjectMcpTrusted(options: {
  gyreHome: string;
  cwd: string;
  trustFlag: boolean;
}): Promise<boolean> {
  if (options.trustFlag) return true;
  const { fingerprint } = await readProjectMcpServers(options.cwd);
  if (!fingerprint) return false;
  const record = (await readTrustFile(options.gyreHome)).projects[await canonicalProjectPath(options.cwd)];
  return record?.mcpFingerprint === fingerprint;
}

/** A trusted folder whose `.mcp.json` is new or changed: asks about the servers alone, or says they were held back. */
async function confirmChangedMcpServers(
  options: { gyreHome: string; cwd: string; fingerprint: string; ui?: UserInterface },
  mcp: ProjectMcpServers,
): Promise<{ warning?: string }> {
  if (!mcp.fingerprint || (await isProjectMcpTrusted({ ...options, trustFlag: false }))) return {};
  if (options.ui?.interactive) {
    const yes = await options.ui.confirm({
      title: "Start this folder's MCP servers?",
      message: `${options.cwd} has a new or changed .mcp.json. MCP servers run code with your permissions.${formatServerList(mcp.servers)}`,
    });
    if (yes) {
      await trustProject({ ...options, mcpFingerprint: mcp.fingerprint });
      return {};
    }
  }
  return { warning: describeHeldBackServers(mcp.names) };
}

function describeHeldBackServers(names: string[]): string {
  return `This folder's .mcp.json (MCP servers ${names.join(", ")}) was not loaded because it is not trusted or changed since it was; pass --trust (or approve it interactively) to start them.`;
}

function formatServerList(servers: string[]): string {
  if (servers.length === 0) return "";
  return `\n\nIts .mcp.json would start these MCP servers:\n${servers.map((line) => `  ${line}`).join("\n")}`;
}

/** Leaves every `${VAR}` as written: the prompt shows what the file says, never a secret's value. */
const unexpanded = new Proxy({} as NodeJS.ProcessEnv, { get: (_target, name) => `\${${String(name)}}` });

/**
 * The project's `.mcp.json` as the trust prompt shows it: one line per server naming what it
 * would run (`name: command args…` or `name: HTTP url`), and a hash of the file's bytes.
 */
async function readProjectMcpServers(cwd: string): Promise<ProjectMcpServers> {
  const path = projectMcpConfigPath(cwd);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return { servers: [], names: [] };
  }
  const fingerprint = createHash("sha256").update(text).digest("hex").slice(0, 16);
  let raw: Record<string, unknown> | undefined;
  try {
    raw = await readMcpConfigFile(path);
  } catch (error) {
    return { servers: [`(unreadable: ${(error as Error).message})`], names: [".mcp.json"], fingerprint };
  }
  const entries = Object.entries(raw ?? {});
  const servers = entries.map(([name, value]) => {
    const parsed = parseServerConfig(name, value, unexpanded);
    return `${name}: ${parsed.ok ? describeServerConfig(parsed.config) : JSON.stringify(value)}`;
  });
  return { servers, names: entries.map(([name]) => name), fingerprint };
}

/**
 * Whether the project has a `.gyre` with anything in it: an empty folder is the mount point a
 * sandbox keeps while it runs (docs/safety.md), which configures nothing and is worth no warning.
 */
async function holdsGyreFiles(cwd: string): Promise<boolean> {
  const entries = await readdir(join(cwd, ".gyre")).catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOTDIR" ? [".gyre"] : [],
  );
  return entries.length > 0;
}
