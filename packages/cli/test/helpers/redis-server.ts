import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";

/** Throws a clear sentence when redis-server is not installed. */
export function requireRedisServer(): void {
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    throw new Error(
      "The fleet tests need redis-server on PATH (apt-get install -y redis-server; .ci/run installs it).",
    );
  }
}

/** A port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A real redis-server on 127.0.0.1 with its data (append-only file) in `dir`; restartable on the same port. */
export type RedisServer = { url: string; port: number; stop(): Promise<void>; start(): Promise<void> };

export async function startRedisServer(dir: string, port?: number): Promise<RedisServer> {
  await mkdir(dir, { recursive: true });
  const chosen = port ?? (await freePort());
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(chosen), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    child = started;
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      started.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("Ready to accept connections")) resolve();
      });
      started.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${seen.slice(-500)}`)));
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${chosen}`, port: chosen, start, stop };
}
