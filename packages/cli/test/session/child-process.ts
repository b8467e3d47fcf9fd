/** Bundles `session-child.ts` once per test file and runs it as a real Node process. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("../../../../", import.meta.url).pathname;

/** Bundles the child script into `dir` and returns the bundle's path. */
export async function bundleChild(dir: string): Promise<string> {
  const outfile = join(dir, "session-child.mjs");
  await build({
    entryPoints: [new URL("./session-child.ts", import.meta.url).pathname],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    plugins: [
      {
        name: "workspace-sources",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^@gyre\/(ai|agent)$/ }, (args) => ({
            path: join(root, "packages", args.path.slice("@gyre/".length), "src/index.ts"),
          }));
        },
      },
    ],
  });
  return outfile;
}

/** A running child and a way to wait for a stdout line matching a pattern. */
export type RunningChild = { child: ChildProcess; waitForLine(pattern: RegExp): Promise<string> };

export function startChild(bundle: string, args: string[]): RunningChild {
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let buffered = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      for (const waiter of waiters.splice(0)) {
        if (waiter.pattern.test(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
      newline = buffered.indexOf("\n");
    }
  });
  child.on("exit", (code, signal) => {
    for (const waiter of waiters.splice(0))
      waiter.reject(new Error(`child exited (${code ?? signal}) before printing ${waiter.pattern}: ${stderr}`));
  });
  return {
    child,
    waitForLine: (pattern) => new Promise((resolve, reject) => waiters.push({ pattern, resolve, reject })),
  };
}

/** Kills the child with SIGKILL and waits until it is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}
