/**
 * gyre's entry: parse flags, build the runtime, hand over to a mode. Wiring only.
 */
import { defaultModelRegistry, describeError, type ImageContent } from "@gyre/ai";
import { BUILT_IN_FLAG_NAMES, type CliArgs, parseArgs } from "./args.js";
import { toRuntimeConfig } from "./cli-config.js";
import { findSubcommand, runSubcommand } from "./commands/index.js";
import type { AgentSession, SessionEvent } from "./core/agent-session.js";
import { getGyreHome, getSessionsDir } from "./core/config/paths.js";
import { CliError, exitCodeFor } from "./core/errors.js";
import { createDeferredUserInterface } from "./core/extensions/deferred-user-interface.js";
import type { ExtensionRunner } from "./core/extensions/extension-runner.js";
import { mayLoadExtensions } from "./core/extensions/load-runtime-resources.js";
import { armStallWatchdog } from "./core/extensions/stall-watchdog.js";
import { findFileMentions, loadFileArguments } from "./core/file-arguments.js";
import { describeOutputSchema, loadOutputSchema } from "./core/output-schema.js";
import { readPipedPrompt } from "./core/read-piped-prompt.js";
import type { RuntimeConfig } from "./core/runtime-config.js";
import { createAgentSession } from "./core/sdk.js";
import { createRedactor } from "./core/session/redact-secrets.js";
import { createHeadlessUserInterface, type UserInterface } from "./core/user-interface.js";
import { helpText } from "./help-text.js";
import type { ScopedModel } from "./modes/model-cycle.js";
import type { RpcUserInterface } from "./modes/rpc/rpc-mode.js";
import { version } from "./version.js";

type DeferredUserInterface = ReturnType<typeof createDeferredUserInterface>;

/** The one place an error that ended gyre becomes a sentence on stderr and an exit code. */
async function run(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return fail(describeError(error), exitCodeFor(error));
  }
}

async function main(argv: string[]): Promise<number> {
  if (process.env.GYRE_EXIT_WITH_PARENT === "1") exitWithParent();
  // A fleet worker's child journals its session to Redis before the file (@gyre/fleet's
  // session-store.ts; the worker that started it has the package).
  const journals =
    process.env.GYRE_SESSION_JOURNAL_KEY !== undefined
      ? await (await (await import("./commands/load-fleet.js")).loadFleet("worker")).sessionJournalsFromEnv(process.env)
      : undefined;
  // A subcommand (commands/index.ts) loads its module only when named: start-up.
  const subcommand = findSubcommand(argv[0]);
  if (subcommand) {
    const io = { cwd: process.cwd(), env: process.env, gyreHome: getGyreHome(process.env) };
    return await runSubcommand(subcommand, argv.slice(1), { ...io, ...standardStreams() });
  }
  // An extension stuck in a synchronous loop ends the run with a sentence (docs/extensions.md#handlers-and-their-context).
  armStallWatchdog(process.env);
  // Unknown --flags may belong to extensions; they are checked again once extensions loaded.
  const parsed = parseArgs(argv, { allowUnknownFlags: true });
  if (!parsed.ok) throw new CliError("bad_usage", parsed.error);
  let args = parsed.value;
  if (args.unknownFlags.length > 0) {
    const strict = parseArgs(argv);
    const gyreHome = getGyreHome(process.env);
    const extensions = toRuntimeConfig(args).extensions;
    if (!strict.ok && !(await mayLoadExtensions({ extensions, cwd: process.cwd(), gyreHome })))
      throw new CliError("bad_usage", strict.error);
  }
  if (args.help) {
    process.stdout.write(helpText);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (args.listModels) return (await import("./modes/list-models.js")).runListModels(process.stdout);
  if (args.resume && args.mode !== "interactive") return failResumeHeadless(process.cwd());

  const piped = await readStdinPrompt(args);
  // `--rewind` never opens the UI: it rewinds and prints its outcome, with or without a terminal.
  if (args.mode === "interactive" && args.rewind === undefined && !(process.stdin.isTTY && process.stdout.isTTY)) {
    // The full-screen UI needs a terminal on both ends (docs/cli.md, "Standard input").
    if (args.resume) return failResumeHeadless(process.cwd());
    if (!hasPromptArgument(args) && !piped.trim()) throw new CliError("bad_usage", noTerminalMessage);
    args.mode = "print";
  }
  if (args.rewind === undefined && lacksPrompt(args, joinPrompt(args.prompt.join(" "), piped)))
    throw new CliError("bad_usage", noPromptMessage);
  const outputSchema = await loadOutputSchemaFlag(args);

  const loud = args.verbose || !!process.stderr.isTTY;
  // An extension's notice may be its command's only output (`gyre -p "/guard"`): always shown.
  const notify = (message: string) => {
    process.stderr.write(`gyre: ${message}\n`);
  };
  const deferredUi = args.mode === "interactive" ? createDeferredUserInterface(notify) : undefined;
  if (deferredUi) {
    // Until the screen UI is up, questions (the folder-trust prompt) are asked on plain lines.
    const { createLineUserInterface } = await import("./modes/interactive/line-user-interface.js");
    deferredUi.attach(createLineUserInterface(process.stdin, process.stdout));
  }
  const rpcUi =
    args.mode === "rpc" ? (await import("./modes/rpc/rpc-mode.js")).createRpcUserInterface(process.stdout) : undefined;
  const ui: UserInterface = deferredUi?.ui ?? rpcUi ?? createHeadlessUserInterface(notify);
  const cwd = args.worktree ? await enterWorktree(args, process.stderr) : process.cwd();
  if (args.rewind !== undefined && args.continueSession) await assertSessionToRewind(cwd);
  let prompt = "";
  // The same entry as any integrator's; one session per process, on the process-wide registry the TUI's model lists read.
  const created = await createAgentSession(
    { cwd, env: process.env, ui, models: defaultModelRegistry },
    {
      config: toRuntimeConfig(args),
      reservedFlags: BUILT_IN_FLAG_NAMES,
      ...(journals ? { journals } : {}),
      configure: (extensions) => {
        // Extension flags may have taken words the first pass read as the prompt.
        args = reparseWithExtensionFlags(argv, args, extensions);
        prompt = joinPrompt(args.prompt.join(" "), piped);
        if (args.rewind === undefined && lacksPrompt(args, prompt)) throw new CliError("bad_usage", noPromptMessage);
        return withSchemaPrompt(toRuntimeConfig(args), outputSchema);
      },
    },
  );
  const { session } = created;
  if (args.rewind !== undefined) return runRewind(session, args, args.rewind);
  // The interactive screen shows notices itself; printing them first would show them twice.
  if (args.mode !== "interactive") {
    for (const notice of created.notices)
      if (loud || notice.level === "problem") process.stderr.write(`gyre: ${notice.text}\n`);
  }
  installSignalHandlers(session);
  // RPC sends notices as events; interactive shows them in the chat until the screen closes.
  const writeNotices = () => session.subscribe((event) => writeNotice(event, loud, args.verbose));
  if (args.mode === "print" || args.mode === "json") writeNotices();
  // After the notice listener: a server that fails while we wait reports through it.
  if (args.mode !== "interactive") {
    // A scripted run sees the same tools every time: it waits for every server, bounded (docs/design/session.md).
    for (const message of await session.waitForMcp()) process.stderr.write(`gyre: ${message}\n`);
  }

  let images: ImageContent[] = [];
  try {
    // Headless prompts inline `@file` words inside the prompt text too; the screen has its own editor.
    const mentioned = args.mode === "interactive" ? [] : await findFileMentions(args.prompt.join(" "), cwd);
    const fileArguments = [...args.fileArguments, ...mentioned.filter((path) => !args.fileArguments.includes(path))];
    if (fileArguments.length > 0) {
      const inlined = await loadFileArguments(fileArguments, cwd).catch((error: unknown) => {
        throw new CliError("bad_usage", describeError(error));
      });
      prompt = inlined.text + prompt;
      images = inlined.images;
    }
    // Interactive mode checks --models itself, before its screen opens.
    const modelScope =
      args.models && args.mode !== "interactive" ? await resolveModelsFlag(args.models, session) : undefined;
    const code = await runMode(session, {
      args,
      prompt,
      images,
      rpcUi,
      deferredUi,
      ...(outputSchema ? { outputSchema } : {}),
      ...(modelScope ? { modelScope } : {}),
    });
    if (args.mode === "interactive") writeNotices();
    return code;
  } finally {
    await session.dispose();
  }
}

/**
 * `--models`: the cycle list RPC's `cycle_model` goes through; print and JSON runs cycle nothing
 * but still refuse a pattern that matches no model (bad usage, exit 2), as the TUI does.
 */
async function resolveModelsFlag(patterns: readonly string[], session: AgentSession): Promise<ScopedModel[]> {
  const { listAvailableModels, resolveModelScope } = await import("./modes/model-cycle.js");
  return resolveModelScope(patterns, listAvailableModels(session.info.startupModel));
}

/** `-w`: the session runs in a new git worktree (docs/worktrees.md); a failure is bad usage. */
async function enterWorktree(args: CliArgs, stderr: NodeJS.WritableStream): Promise<string> {
  const { createWorktree } = await import("./core/worktree/worktrees.js");
  const name = args.worktree;
  const created = await createWorktree({
    cwd: process.cwd(),
    gyreHome: getGyreHome(process.env),
    env: process.env,
    // The hooks a session here would run: the project's with --trust or a remembered trust, Claude's with --claude-compat.
    trust: args.trust,
    claudeCompat: args.claudeCompat,
    ...(name === true || name === undefined ? {} : { name }),
  }).catch((error: Error) => {
    throw new CliError("bad_usage", error.message);
  });
  for (const message of created.messages) stderr.write(`gyre: ${message}\n`);
  stderr.write(`gyre: working in worktree ${created.path} (branch ${created.branch}); it stays after exit.\n`);
  return created.workDir;
}

/** `-c --rewind` in a folder without a session would open a new, empty one: say so instead. */
async function assertSessionToRewind(cwd: string): Promise<void> {
  const { findNewestSession } = await import("./core/session/session-store.js");
  const newest = await findNewestSession({ sessionsDir: getSessionsDir(getGyreHome(process.env)), cwd });
  if (newest === undefined)
    throw new CliError(
      "bad_usage",
      "There is no session in this folder to rewind; run gyre here first, or pass --session <path|id>.",
    );
}

/** `--rewind <entryId>` for scripts: one rewind, its outcome as JSON, then exit. */
async function runRewind(session: AgentSession, args: CliArgs, entryId: string): Promise<number> {
  const { runRewindMode } = await import("./modes/rewind-mode.js");
  const options = { entryId, restore: args.restore ?? "both", force: args.force };
  try {
    return await runRewindMode(session, { ...options, stdout: process.stdout, stderr: process.stderr });
  } finally {
    await session.dispose();
  }
}

/** The second pass over argv once extensions registered their flags; their values go to the extensions. */
function reparseWithExtensionFlags(argv: string[], args: CliArgs, extensions: ExtensionRunner | undefined): CliArgs {
  const flags = extensions?.getFlags() ?? new Map();
  if (args.unknownFlags.length === 0 && flags.size === 0) return args;
  const types = Object.fromEntries([...flags].map(([name, flag]) => [name, flag.type]));
  const reparsed = parseArgs(argv, { extensionFlags: types });
  if (!reparsed.ok) throw new CliError("bad_usage", reparsed.error);
  const next = { ...reparsed.value, mode: args.mode };
  extensions?.setFlagValues(next.extensionFlags);
  return next;
}

/** `--output-schema`: only with print or JSON mode; the file must hold a JSON Schema object. */
async function loadOutputSchemaFlag(args: CliArgs): Promise<Record<string, unknown> | undefined> {
  if (args.outputSchema === undefined) return undefined;
  if (args.mode !== "print" && args.mode !== "json") {
    throw new CliError("bad_usage", "--output-schema works with -p or --mode json; add -p.");
  }
  return loadOutputSchema(args.outputSchema).catch((error: unknown) => {
    throw new CliError("bad_usage", describeError(error));
  });
}

/** The config with the output-schema instruction appended to the system prompt. */
function withSchemaPrompt(config: RuntimeConfig, schema: Record<string, unknown> | undefined): RuntimeConfig {
  if (schema === undefined) return config;
  const instruction = describeOutputSchema(schema);
  return {
    ...config,
    appendSystemPrompt: config.appendSystemPrompt ? `${config.appendSystemPrompt}\n\n${instruction}` : instruction,
  };
}

/** A session notice on stderr as `gyre: …`; info only when loud, the hooks' only with --verbose (docs/hooks.md). */
function writeNotice(event: SessionEvent, loud: boolean, verbose: boolean): void {
  if (event.type !== "notice" || (event.level === "info" && !(event.source === "hooks" ? verbose : loud))) return;
  process.stderr.write(`gyre: ${event.message}\n`);
}

/**
 * The prompt piped on stdin ("" when stdin is a terminal, or RPC's command stream, or ignored).
 * With a prompt argument a silent pipe is waited on for a second only: a caller that holds
 * stdin open and never writes (CI runners, other agents) is not hung (docs/cli.md).
 */
async function readStdinPrompt(args: CliArgs): Promise<string> {
  if (args.mode === "rpc" || args.rewind !== undefined || process.stdin.isTTY) return "";
  const wait = hasPromptArgument(args) ? { firstByteTimeoutMs: STDIN_FIRST_BYTE_MS } : {};
  const read = await readPipedPrompt(process.stdin, process.stderr, wait);
  if (!read.ok) throw new CliError("bad_usage", read.error);
  return read.text;
}

const STDIN_FIRST_BYTE_MS = 1_000;

/** Whether the command line itself carries a prompt (words or @file arguments). */
function hasPromptArgument(args: CliArgs): boolean {
  return args.prompt.join(" ").trim() !== "" || args.fileArguments.length > 0;
}

const noTerminalMessage =
  'The full-screen UI needs stdin and stdout to be a terminal; pass a prompt (gyre -p "fix the failing test") or pipe one on stdin.';

const noPromptMessage =
  'No prompt given; pass one as an argument (gyre -p "fix the failing test") or pipe it on stdin.';

/** Whether a headless mode (print, json) was left with nothing to send. */
function lacksPrompt(args: CliArgs, prompt: string): boolean {
  return args.mode !== "rpc" && args.mode !== "interactive" && !prompt.trim() && args.fileArguments.length === 0;
}

/** The prompt words, followed by what was piped on stdin when that is more than white space. */
function joinPrompt(words: string, piped: string): string {
  if (!piped.trim()) return words;
  return words ? `${words}\n\n${piped}` : piped;
}

/** Hands the runtime to the chosen mode; its exit code. The caller disposes of the session. */
async function runMode(
  session: AgentSession,
  options: {
    args: CliArgs;
    prompt: string;
    images: ImageContent[];
    rpcUi: RpcUserInterface | undefined;
    deferredUi: DeferredUserInterface | undefined;
    outputSchema?: Record<string, unknown>;
    modelScope?: readonly ScopedModel[];
  },
): Promise<number> {
  const { args, prompt, images, rpcUi, deferredUi } = options;
  switch (args.mode) {
    case "print":
      return await (await import("./modes/print.js")).runPrintMode({
        session,
        prompt,
        images,
        stdout: process.stdout,
        stderr: process.stderr,
        verbose: args.verbose || !!process.stderr.isTTY,
        ...(options.outputSchema ? { outputSchema: options.outputSchema } : {}),
      });
    case "json":
      return await (await import("./modes/json.js")).runJsonMode({
        session,
        prompt,
        images,
        stdout: process.stdout,
        stderr: process.stderr,
        redact: createRedactor({ env: process.env, secrets: args.apiKey ? [args.apiKey] : [] }),
        ...(options.outputSchema ? { outputSchema: options.outputSchema } : {}),
        describeSandbox: () => session.describeSandbox(),
      });
    case "rpc":
      return await (await import("./modes/rpc/rpc-mode.js")).runRpcMode({
        session,
        env: process.env,
        stdin: process.stdin,
        stdout: process.stdout,
        ...(options.modelScope ? { modelScope: options.modelScope } : {}),
        ...(rpcUi ? { ui: rpcUi } : {}),
      });
    case "interactive":
      // Loaded only here so the TUI stays off the print/json/rpc start-up path.
      return await (await import("./modes/interactive/interactive-mode.js")).runInteractiveMode(session, {
        initialPrompt: prompt,
        resume: args.resume,
        ...(args.models ? { models: args.models } : {}),
        version,
        ...(deferredUi ? { onUserInterface: deferredUi.attach } : {}),
      });
    default: {
      const never: never = args.mode;
      throw new CliError("bad_usage", `Unknown mode ${String(never)}.`);
    }
  }
}

/** `--resume` picks interactively; headless runs get the list and the flag to use instead. */
async function failResumeHeadless(cwd: string): Promise<number> {
  const { listSessions } = await import("./core/session/session-store.js");
  const sessions = await listSessions({ sessionsDir: getSessionsDir(getGyreHome(process.env)), cwd });
  const lines = sessions
    .slice(0, 10)
    .map(
      (session) =>
        `  ${session.id.slice(0, 8)}  ${session.modified.toISOString().slice(0, 16)}  ${session.firstMessage}`,
    );
  process.stderr.write(lines.length > 0 ? `Sessions of this folder, newest first:\n${lines.join("\n")}\n` : "");
  throw new CliError(
    "bad_usage",
    "--resume needs the interactive mode; pass --session <id> (or -c for the newest) instead.",
  );
}

function standardStreams() {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

function fail(message: string, code: 1 | 2): number {
  process.stderr.write(`gyre: ${message}\n`);
  return code;
}

/**
 * SIGINT/SIGTERM/SIGHUP (the terminal closed): abort the run (tools' process groups are killed
 * by their signal), persist, exit with 128 + the signal's number.
 */
let signalExitCode: number | undefined;

/**
 * A run started by a fleet worker stops (as on SIGTERM: abort, kill tool groups, persist) when
 * that worker dies, so a job taken over by another worker is never run twice at once.
 */
function exitWithParent(): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, "SIGTERM");
  }, 250);
  timer.unref();
}

function installSignalHandlers(session: AgentSession): void {
  const stop = (signal: NodeJS.Signals) => {
    if (signalExitCode !== undefined) process.exit(signalExitCode);
    signalExitCode = signalExitCodes[signal] ?? 143;
    process.stderr.write(`gyre: ${signal} received; stopping the run and saving the session.\n`);
    void session.dispose().finally(() => exitAfterOutput(signalExitCode ?? 1));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("SIGHUP", stop);
}

const signalExitCodes: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Exits once everything written to stdout and stderr has reached the OS: on a pipe whose reader
 * is slow, Node queues writes, and `process.exit` alone would drop the end of the output.
 */
async function exitAfterOutput(code: number): Promise<never> {
  const drained = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || !stream.writable) resolve();
      else stream.write("", () => resolve());
    });
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

// A closed pipe (`gyre … | head`) is the reader's choice, not a crash.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

const code = await run(process.argv.slice(2));
// A run ended by a signal exits with the signal's code, whichever path finishes first.
await exitAfterOutput(signalExitCode ?? code);
