/**
 * gyre's entry: parse flags, build the runtime, hand over to a mode. Wiring only.
 */
import type { ImageContent } from "@gyre/ai";
import { type CliArgs, helpText, parseArgs } from "./args.js";
import { getGyreHome, getSessionsDir } from "./core/config/paths.js";
import { createRuntime, type Runtime, StartupError } from "./core/create-runtime.js";
import { createDeferredUserInterface } from "./core/extensions/deferred-user-interface.js";
import { mayLoadExtensions } from "./core/extensions/load-runtime-resources.js";
import { loadFileArguments } from "./core/file-arguments.js";
import { createRedactor } from "./core/session/redact-secrets.js";
import { createHeadlessUserInterface, type UserInterface } from "./core/user-interface.js";
import { limitYoungGeneration } from "./limit-young-generation.js";
import type { RpcUserInterface } from "./modes/rpc/rpc-mode.js";
import { prepareFetch } from "./prepare-fetch.js";
import { version } from "./version.js";

type DeferredUserInterface = ReturnType<typeof createDeferredUserInterface>;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "doctor") {
    const { runDoctorMode } = await import("./modes/doctor-mode.js");
    const context = { cwd: process.cwd(), gyreHome: getGyreHome(process.env), stdout: process.stdout };
    return runDoctorMode({ argv: argv.slice(1), ...context, stderr: process.stderr });
  }
  // Unknown --flags may belong to extensions; they are checked again once extensions loaded.
  const parsed = parseArgs(argv, { allowUnknownFlags: true });
  if (!parsed.ok) return fail(parsed.error, 2);
  let args = parsed.value;
  if (args.unknownFlags.length > 0) {
    const strict = parseArgs(argv);
    const gyreHome = getGyreHome(process.env);
    if (!strict.ok && !(await mayLoadExtensions({ args, cwd: process.cwd(), gyreHome }))) return fail(strict.error, 2);
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

  let piped = "";
  if (args.mode !== "rpc" && args.rewind === undefined && !process.stdin.isTTY) {
    piped = await readStdin();
    if (piped.trim() && args.mode === "interactive") args.mode = "print";
  }
  let prompt = joinPrompt(args.prompt.join(" "), piped);
  if (args.rewind === undefined && lacksPrompt(args, prompt)) return fail(noPromptMessage, 2);

  const verboseNotices = args.verbose || !!process.stderr.isTTY;
  const notify = (message: string) => {
    if (verboseNotices) process.stderr.write(`gyre: ${message}\n`);
  };
  const deferredUi = args.mode === "interactive" ? createDeferredUserInterface(notify) : undefined;
  if (deferredUi && process.stdin.isTTY) {
    // Until the screen UI is up, questions (the folder-trust prompt) are asked on plain lines.
    const { createLineUserInterface } = await import("./modes/interactive/line-user-interface.js");
    deferredUi.attach(createLineUserInterface(process.stdin, process.stdout));
  }
  const rpcUi =
    args.mode === "rpc" ? (await import("./modes/rpc/rpc-mode.js")).createRpcUserInterface(process.stdout) : undefined;
  const ui: UserInterface = deferredUi?.ui ?? rpcUi ?? createHeadlessUserInterface(notify);
  let runtime: Runtime;
  try {
    runtime = await createRuntime(args, { cwd: process.cwd(), env: process.env, ui, argv });
  } catch (error) {
    if (error instanceof StartupError) return fail(error.message, error.exitCode);
    return fail((error as Error).message, 1);
  }
  if (args.rewind !== undefined) {
    const { runRewindMode } = await import("./modes/rewind-mode.js");
    const options = { entryId: args.rewind, restore: args.restore ?? "both", force: args.force };
    const code = await runRewindMode(runtime, { ...options, stdout: process.stdout, stderr: process.stderr });
    await runtime.session.dispose();
    return code;
  }
  prepareFetch();
  limitYoungGeneration();
  if (runtime.args !== args) {
    // Extension flags may have taken words the first pass read as the prompt.
    args = runtime.args;
    prompt = joinPrompt(args.prompt.join(" "), piped);
    if (lacksPrompt(args, prompt)) {
      await runtime.session.dispose();
      return fail(noPromptMessage, 2);
    }
  }
  const { session } = runtime;
  // The interactive screen shows warnings itself; printing them first would show them twice.
  if (args.mode !== "interactive") {
    const loud = args.verbose || !!process.stderr.isTTY;
    for (const warning of runtime.warnings)
      if (loud || runtime.problems.includes(warning)) process.stderr.write(`gyre: ${warning}\n`);
  }
  installSignalHandlers(runtime);

  let images: ImageContent[] = [];
  if (args.fileArguments.length > 0) {
    try {
      const inlined = await loadFileArguments(args.fileArguments, runtime.cwd);
      prompt = inlined.text + prompt;
      images = inlined.images;
    } catch (error) {
      await session.dispose();
      return fail((error as Error).message, 2);
    }
  }

  try {
    return await runMode(runtime, { args, prompt, images, rpcUi, deferredUi });
  } finally {
    await session.dispose();
  }
}

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
  runtime: Runtime,
  options: {
    args: CliArgs;
    prompt: string;
    images: ImageContent[];
    rpcUi: RpcUserInterface | undefined;
    deferredUi: DeferredUserInterface | undefined;
  },
): Promise<number> {
  const { args, prompt, images, rpcUi, deferredUi } = options;
  const { session } = runtime;
  switch (args.mode) {
    case "print":
      return await (await import("./modes/print.js")).runPrintMode({
        session,
        prompt,
        images,
        stdout: process.stdout,
        stderr: process.stderr,
        verbose: args.verbose || !!process.stderr.isTTY,
      });
    case "json":
      return await (await import("./modes/json.js")).runJsonMode({
        session,
        prompt,
        images,
        stdout: process.stdout,
        stderr: process.stderr,
        redact: createRedactor({ env: process.env, secrets: args.apiKey ? [args.apiKey] : [] }),
      });
    case "rpc":
      return await (await import("./modes/rpc/rpc-mode.js")).runRpcMode({
        session,
        cwd: runtime.cwd,
        sessionsDir: getSessionsDir(runtime.gyreHome),
        env: process.env,
        stdin: process.stdin,
        stdout: process.stdout,
        checkpoints: runtime.checkpoints,
        ...(rpcUi ? { ui: rpcUi } : {}),
      });
    case "interactive":
      // Loaded only here so the TUI stays off the print/json/rpc start-up path.
      return await (await import("./modes/interactive/interactive-mode.js")).runInteractiveMode(runtime, {
        initialPrompt: prompt,
        resume: args.resume,
        version,
        extensions: runtime.extensions?.extensions.map((extension) => extension.path) ?? [],
        ...(deferredUi ? { onUserInterface: deferredUi.attach } : {}),
      });
    default: {
      const never: never = args.mode;
      return fail(`Unknown mode ${String(never)}.`, 2);
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
  return fail("--resume needs the interactive mode; pass --session <id> (or -c for the newest) instead.", 2);
}

function fail(message: string, code: 1 | 2): number {
  process.stderr.write(`gyre: ${message}\n`);
  return code;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** SIGINT/SIGTERM: abort the run (tools' process groups are killed by their signal), persist, exit. */
let signalExitCode: number | undefined;

function installSignalHandlers(runtime: Runtime): void {
  const stop = (signal: NodeJS.Signals) => {
    if (signalExitCode !== undefined) process.exit(signalExitCode);
    signalExitCode = signal === "SIGINT" ? 130 : 143;
    process.stderr.write(`gyre: ${signal} received; stopping the run and saving the session.\n`);
    void runtime.session.dispose().finally(() => exitAfterOutput(signalExitCode ?? 1));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

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

const code = await main(process.argv.slice(2));
// A run ended by a signal exits with the signal's code, whichever path finishes first.
await exitAfterOutput(signalExitCode ?? code);
