/**
 * `gyre acp [gyre flags…]`: gyre as an Agent Client Protocol agent on stdio (docs/acp.md), so
 * Zed, JetBrains IDEs, Neovim and Emacs plugins run it as their coding agent. The flags after
 * `acp` (provider, model, sandbox, approval, MCP config…) apply to every session the editor
 * opens; each `session/new` or `session/load` builds one gyre session in the folder it names.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILT_IN_FLAG_NAMES, type CliArgs, parseArgs } from "../../args.js";
import { toRuntimeConfig } from "../../cli-config.js";
import { getGyreHome } from "../../core/config/paths.js";
import { createRuntime, loadRuntimeBase } from "../../core/create-runtime.js";
import { CliError } from "../../core/errors.js";
import { describeServerState } from "../../core/mcp/describe-status.js";
import type { RuntimeConfig } from "../../core/runtime-config.js";
import type { AcpSessionRequest, OpenedAcpSession } from "../../modes/acp/acp-types.js";
import type { CommandIo } from "../command-io.js";

export const acpUsage = `Usage:
  gyre acp [flags]    gyre as an Agent Client Protocol (ACP) agent on stdin/stdout

An editor (Zed, JetBrains, Neovim, Emacs) starts it and speaks ACP v1 over the pipes; nothing
but JSON-RPC is written to stdout. The gyre flags given here apply to every session the editor
opens: --provider, --model, --thinking, --sandbox, --approval, --allow-network, --tools,
--mcp-config, --trust, --max-turns, --max-cost, --extension, --no-extensions. API keys come
from the environment (or --api-key-file); the editor needs no sign-in step.

Sessions are gyre's own session files: the editor can load one again after a restart.
See docs/acp.md for what is supported.
`;

/** Flags that make no sense for an agent the editor drives (it sends the prompts and picks sessions). */
const refusedFlags = ["-p/--print", "-c/--continue", "-r/--resume", "--session", "--mode", "--output-schema"];

export async function runAcpCommand(argv: string[], io: CommandIo): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) return usageError(io, parsed.error);
  const flags = parsed.value;
  if (flags.prompt.length > 0 || flags.fileArguments.length > 0)
    return usageError(io, "gyre acp takes no prompt: the editor sends prompts over ACP.");
  const named = (flag: string) => argv.some((word) => word === flag || word.startsWith(`${flag}=`));
  if (flags.print || flags.continueSession || flags.resume || flags.session || flags.outputSchema || named("--mode"))
    return usageError(io, `gyre acp does not take ${refusedFlags.join(", ")}: the editor picks the sessions.`);
  const { runAcpMode } = await import("../../modes/acp/acp-mode.js");
  return runAcpMode({
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    gyreHome: getGyreHome(io.env),
    open: (request) => openSession(flags, io, request),
  });
}

function usageError(io: CommandIo, message: string): number {
  io.stderr.write(`gyre: ${message}\n`);
  return 2;
}

/**
 * One gyre session for the editor, built the way the CLI builds a run (settings, trust,
 * extensions, tools, sandbox, MCP), in the folder the editor named. The editor's MCP servers are
 * written to a private config file read after the user's (a same-named server of the editor's
 * wins). A loaded session continues on the model it last used, whatever the flags name.
 */
async function openSession(flags: CliArgs, io: CommandIo, request: AcpSessionRequest): Promise<OpenedAcpSession> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-acp-"));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const editorServers = join(dir, "mcp.json");
    await writeFile(editorServers, JSON.stringify({ mcpServers: request.mcpServers }), { mode: 0o600 });
    const cli = toRuntimeConfig(flags);
    // A loaded session continues on the model it recorded last (the editor's restart restores it).
    const { provider: _provider, model: _model, ...withoutModel } = cli;
    const config: RuntimeConfig = {
      ...(request.load ? withoutModel : cli),
      // Extensions see an RPC-like front end: a client that answers questions and approvals.
      mode: "rpc",
      session: request.load ? { kind: "open", pathOrId: request.load, fork: false } : { kind: "new" },
      mcp: { configFiles: [...(cli.mcp?.configFiles ?? []), editorServers], enabled: cli.mcp?.enabled !== false },
      ...(request.plan ? { plan: true } : {}),
    };
    const runtimeIo = {
      cwd: request.cwd,
      env: io.env,
      ui: request.ui,
      reservedFlags: BUILT_IN_FLAG_NAMES,
      ...(request.fileSystem ? { fileSystem: request.fileSystem } : {}),
    };
    const runtime = await createRuntime(config, await loadRuntimeBase(config, runtimeIo), runtimeIo);
    const messages: string[] = runtime.notices.filter((notice) => notice.level === "problem").map((n) => n.text);
    const session = runtime.session;
    if (runtime.mcp) {
      // The first prompt sees the same tools every time: wait for every server, bounded.
      const started = await runtime.mcp.waitForStartup(runtime.settings.mcpStartupTimeoutMs);
      messages.push(...started.messages);
      // A server that failed may have said so before anyone listened: its state says it again.
      for (const status of session.mcpStatuses()) {
        const named = `MCP server "${status.name}"`;
        if ((status.state === "failed" || status.state === "disabled") && !messages.some((m) => m.includes(named)))
          messages.push(`${named} ${describeServerState(status)}.`);
      }
    }
    return {
      session,
      notices: messages,
      dispose: async () => {
        await session.dispose();
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    if (error instanceof CliError && error.code === "session_locked")
      throw new CliError("session_locked", error.message.replace(/\s*To continue in a copy now, add --fork\.$/, ""));
    throw error;
  }
}
