/**
 * gyre's subcommands, one row each (docs/cli.md, "Subcommands"): the name that starts the command
 * line, the line `gyre --help` shows, and `load`, which imports the command's module only when it
 * runs, so start-up loads none of them. `main.ts` dispatches through `runSubcommand`; a first word
 * that is no row here is the start of a prompt.
 */
import type { CommandIo } from "./command-io.js";

export type { CommandIo } from "./command-io.js";

/** A subcommand's module: its usage (what `gyre <name> --help` prints) and its run (the exit code). */
export type CommandModule = { usage: string; run(args: string[], io: CommandIo): Promise<number> };

export type Subcommand = { name: string; summary: string; load(): Promise<CommandModule> };

/** `install`, `list`, `remove`, `update` share one module, told which verb ran. */
function packageCommand(verb: string): () => Promise<CommandModule> {
  return async () => {
    const { packageHelpText, runPackageCommand } = await import("./packages/package-commands.js");
    return { usage: packageHelpText, run: (args, io) => runPackageCommand(verb, args, io) };
  };
}

/**
 * The fleet's and the evaluation's commands come from the `@gyre/fleet` package, loaded when one
 * runs (load-fleet.ts); their usage is gyre's own, so `--help` works without the package.
 */
function fleetCommand(name: string): () => Promise<CommandModule> {
  return async () => {
    const { fleetUsage } = await import("./fleet-usage.js");
    return {
      usage: fleetUsage(name),
      run: async (args, io) => {
        const { loadFleet } = await import("./load-fleet.js");
        return (await loadFleet(name)).runFleetCommand([name, ...args], io);
      },
    };
  };
}

export const subcommands: readonly Subcommand[] = [
  {
    name: "doctor",
    summary: "check the installation (Node, sandbox, git, ripgrep, keys, MCP) and a session",
    load: async () => {
      const { doctorUsage, runDoctorCommand } = await import("./doctor/doctor-command.js");
      return { usage: doctorUsage, run: runDoctorCommand };
    },
  },
  {
    name: "acp",
    summary: "gyre as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim)",
    load: async () => {
      const { acpUsage, runAcpCommand } = await import("./acp/acp-command.js");
      return { usage: acpUsage, run: runAcpCommand };
    },
  },
  {
    name: "mcp",
    summary: "MCP servers: list, get, add, remove, login, logout, serve",
    load: async () => {
      const { mcpHelpText, runMcpCommand } = await import("./mcp/run-mcp-command.js");
      return { usage: mcpHelpText, run: runMcpCommand };
    },
  },
  { name: "install", summary: "install extension, skill, prompt and theme packages", load: packageCommand("install") },
  { name: "list", summary: "list the installed packages", load: packageCommand("list") },
  { name: "remove", summary: "remove installed packages", load: packageCommand("remove") },
  { name: "update", summary: "update installed packages", load: packageCommand("update") },
  { name: "worker", summary: "fleet: run jobs from a Redis queue", load: fleetCommand("worker") },
  { name: "submit", summary: "fleet: put a prompt on the queue as a job", load: fleetCommand("submit") },
  { name: "jobs", summary: "fleet: list the queue's jobs", load: fleetCommand("jobs") },
  { name: "job", summary: "fleet: one job's state, live events, cancel, or its session", load: fleetCommand("job") },
  {
    name: "eval",
    summary: "run a task set across models or builds: pass rates, cost, turns",
    load: fleetCommand("eval"),
  },
  {
    name: "review",
    summary: "a read-only subagent reviews the uncommitted changes, or the branch with --base <ref>",
    load: async () => {
      const { reviewUsage, runReviewCommand } = await import("./review/review-command.js");
      return { usage: reviewUsage, run: runReviewCommand };
    },
  },
  {
    name: "worktree",
    summary: "the git worktrees gyre -w made: list, remove",
    load: async () => {
      const { runWorktreeCommand, worktreeUsage } = await import("./worktree/worktree-command.js");
      return { usage: worktreeUsage, run: runWorktreeCommand };
    },
  },
  {
    name: "login",
    summary: "sign in with a plan instead of an API key: github-copilot or openai-codex (ChatGPT)",
    load: async () => {
      const { loginUsage, runLoginCommand } = await import("./login/login-command.js");
      return { usage: loginUsage, run: runLoginCommand };
    },
  },
  {
    name: "logout",
    summary: "forget a plan sign-in (github-copilot, openai-codex)",
    load: async () => {
      const { loginUsage, runLogoutCommand } = await import("./login/login-command.js");
      return { usage: loginUsage, run: runLogoutCommand };
    },
  },
  {
    name: "stats",
    summary:
      "tokens, cache hits and cost of the sessions on disk, by model, day, project and agent; --html draws charts",
    load: async () => {
      const { statsUsage, runStatsCommand } = await import("./stats/stats-command.js");
      return { usage: statsUsage, run: runStatsCommand };
    },
  },
  {
    name: "replay",
    summary: "re-run a session's model outputs on this build's tools and diff",
    load: fleetCommand("replay"),
  },
];

/** The row for `word`, if it names a subcommand. */
export function findSubcommand(word: string | undefined): Subcommand | undefined {
  return subcommands.find((row) => row.name === word);
}

/** Loads and runs one subcommand; `--help`/`-h` anywhere before `--` prints its usage instead (exit 0). */
export async function runSubcommand(row: Subcommand, args: string[], io: CommandIo): Promise<number> {
  const command = await row.load();
  const end = args.indexOf("--");
  const flags = end === -1 ? args : args.slice(0, end);
  if (flags.includes("--help") || flags.includes("-h")) {
    io.stdout.write(command.usage);
    return 0;
  }
  return await command.run(args, io);
}

/** The subcommand lines of `gyre --help`, from the table. */
export function subcommandHelp(): string {
  const width = Math.max(...subcommands.map((row) => row.name.length)) + 2;
  return subcommands.map((row) => `  gyre ${row.name.padEnd(width)}${row.summary}\n`).join("");
}
