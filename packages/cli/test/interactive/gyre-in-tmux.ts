import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { startTmux, type TmuxSession } from "./tmux-session.js";

/** The request body the fake server saw, as far as these tests read it. */
export type RequestBody = { model?: string; messages?: { role: string; content: unknown }[] };

export type Replies = (request: { body: RequestBody; index: number }) => FakeReply | Promise<FakeReply>;

let sessions: TmuxSession[] = [];
let servers: FakeModelServer[] = [];

/** Starts the built CLI in tmux against a fake model server; `stopGyres` (in `afterEach`) ends both. */
export async function startGyre(
  replies: Replies,
  options: {
    args?: string[];
    width?: number;
    height?: number;
    /** Writes files (extensions, templates, settings) before gyre starts. */
    setup?: (dirs: { cwd: string; home: string; url: string }) => Promise<void>;
    /** Replaces the default `--provider openai --model gpt-4o --base-url …` flags. */
    modelArgs?: (url: string) => string[];
    /** Extra environment variables (NO_COLOR, …). */
    env?: Record<string, string>;
    /** The folder and home of an earlier gyre (to continue its session); default new ones. */
    workspace?: { cwd: string; home: string };
  } = {},
) {
  const server = await startFakeModelServer({ respond: replies });
  servers.push(server);
  const { cwd, home } = options.workspace ?? (await createWorkspace());
  await options.setup?.({ cwd, home, url: server.url });
  const modelArgs = options.modelArgs?.(server.url) ?? [
    "--provider",
    "openai",
    "--model",
    "gpt-4o",
    "--base-url",
    `${server.url}/v1`,
  ];
  const args = [...modelArgs, ...(options.args ?? [])];
  const extra = Object.entries(options.env ?? {}).map(([key, value]) => ` ${key}='${value}'`);
  const env = `env -i PATH="${process.env.PATH}" HOME="${home}" GYRE_HOME="${home}" TERM=xterm-256color${extra.join("")}`;
  const quoted = args.map((arg) => `'${arg}'`).join(" ");
  const tmux = await startTmux({
    command: `${env} node ${gyreBin} ${quoted}`,
    cwd,
    width: options.width ?? 100,
    height: options.height ?? 30,
  });
  sessions.push(tmux);
  await tmux.waitFor(/thinking (off|minimal|low|medium|high|xhigh)/);
  return { tmux, server, cwd, home };
}

export async function stopGyres(): Promise<void> {
  await Promise.all(sessions.map((session) => session.kill()));
  await Promise.all(servers.map((server) => server.close()));
  sessions = [];
  servers = [];
}

/** Types `text` and presses Enter. */
export async function submit(tmux: TmuxSession, text: string): Promise<void> {
  await tmux.type(text);
  await tmux.send(["Enter"]);
}

/** The user messages of a request, as JSON text (content may be a string or parts). */
export function userTexts(body: RequestBody | undefined): string[] {
  return (body?.messages ?? []).filter((message) => message.role === "user").map((m) => JSON.stringify(m.content));
}

/** Every session file under `home`, with its parsed lines. */
export async function readSessionFiles(home: string): Promise<{ path: string; entries: Record<string, unknown>[] }[]> {
  const root = join(home, "sessions");
  const folders = await readdir(root).catch(() => [] as string[]);
  const files: { path: string; entries: Record<string, unknown>[] }[] = [];
  for (const folder of folders)
    for (const name of await readdir(join(root, folder))) {
      if (!name.endsWith(".jsonl")) continue;
      const path = join(root, folder, name);
      const text = await readFile(path, "utf8");
      const entries = text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      files.push({ path, entries });
    }
  return files;
}

/** Polls `check` until it returns a value other than undefined; throws after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
