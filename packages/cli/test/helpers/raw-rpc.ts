import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { cliEnv, gyreBin } from "./run-cli.js";

/** A `gyre --mode rpc` child fed raw lines (no RpcClient), with everything it wrote so far. */
export type RawRpc = {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  /** Waits (at most 15 s) until stdout holds `text`. */
  waitFor(text: string): Promise<void>;
  /** Ends stdin and resolves with the exit code. */
  close(): Promise<number | null>;
};

/** Starts `gyre --mode rpc --provider openai` against the fake model server at `serverUrl`. */
export function startRawRpc(options: { cwd: string; home: string; serverUrl: string; args?: string[] }): RawRpc {
  const child = spawn(process.execPath, [gyreBin, "--mode", "rpc", "--provider", "openai", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: cliEnv(options.home, { OPENAI_BASE_URL: `${options.serverUrl}/v1`, OPENAI_API_KEY: "sk-test" }),
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return {
    child,
    stdout: () => stdout,
    async waitFor(text) {
      const deadline = Date.now() + 15_000;
      while (!stdout.includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    },
    close() {
      child.stdin.end();
      return exited;
    },
  };
}
