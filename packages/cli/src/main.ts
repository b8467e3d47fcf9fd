/**
 * gyre's entry: parse flags, build the runtime, hand over to a mode. Wiring only.
 */
import { helpText, parseArgs } from "./args.js";
import { getSessionsDir } from "./core/config/paths.js";
import { createRuntime, type Runtime, StartupError } from "./core/create-runtime.js";
import { loadFileArguments } from "./core/file-arguments.js";
import { version } from "./version.js";

async function main(argv: string[]): Promise<number> {
  const parsed = parseArgs(argv);
  if (!parsed.ok) return fail(parsed.error, 2);
  const args = parsed.value;
  if (args.help) {
    process.stdout.write(helpText);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (args.listModels) return (await import("./modes/list-models.js")).runListModels(process.stdout);

  let prompt = args.prompt.join(" ");
  if (args.mode !== "rpc" && !process.stdin.isTTY) {
    const piped = await readStdin();
    if (piped.trim()) {
      prompt = prompt ? `${prompt}\n\n${piped}` : piped;
      if (args.mode === "interactive") args.mode = "print";
    }
  }
  if (args.mode !== "rpc" && args.mode !== "interactive" && !prompt.trim() && args.fileArguments.length === 0) {
    return fail('No prompt given; pass one as an argument (gyre -p "fix the failing test") or pipe it on stdin.', 2);
  }

  let runtime: Runtime;
  try {
    runtime = await createRuntime(args, { cwd: process.cwd(), env: process.env });
  } catch (error) {
    if (error instanceof StartupError) return fail(error.message, error.exitCode);
    return fail((error as Error).message, 1);
  }
  const { session } = runtime;
  if (args.verbose || process.stderr.isTTY)
    for (const warning of runtime.warnings) process.stderr.write(`gyre: ${warning}\n`);
  installSignalHandlers(runtime);

  let images: import("@gyre/ai").ImageContent[] = [];
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
        });
      case "rpc":
        return await (await import("./modes/rpc/rpc-mode.js")).runRpcMode({
          session,
          cwd: runtime.cwd,
          sessionsDir: getSessionsDir(runtime.gyreHome),
          env: process.env,
          stdin: process.stdin,
          stdout: process.stdout,
        });
      case "interactive":
        // Loaded only here so the TUI stays off the print/json/rpc start-up path.
        return await (await import("./modes/interactive/interactive-mode.js")).runInteractiveMode(runtime, {
          initialPrompt: prompt,
          resume: args.resume,
          version,
        });
      default: {
        const never: never = args.mode;
        return fail(`Unknown mode ${String(never)}.`, 2);
      }
    }
  } finally {
    await session.dispose();
  }
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
function installSignalHandlers(runtime: Runtime): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`gyre: ${signal} received; stopping the run and saving the session.\n`);
    void runtime.session.dispose().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

// A closed pipe (`gyre … | head`) is the reader's choice, not a crash.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

const code = await main(process.argv.slice(2));
process.exit(code);
