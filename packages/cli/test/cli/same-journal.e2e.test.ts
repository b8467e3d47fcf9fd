/**
 * One op sequence through the three front ends — the TUI in tmux, RPC and the SDK — writes the
 * same journal: a prompt, a prompt template typed while the answer is being written away, /new,
 * !cmd, plan mode toggled while a run works, and a rewind. The session decides what waits; no
 * front end infers when the run is over (docs/design/session.md).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/session-events.js";
import { createAgentSession } from "../../src/index.js";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";
import { eventually, readSessionFiles, startGyre, stopGyres, submit } from "../interactive/gyre-in-tmux.js";

/** Holds every run's end for 1.5 s, as a slow disk or checkpoint would: the answer shows before the run is over. */
const slowEnd =
  'export default (api) => api.on("agent_end", () => new Promise((resolve) => setTimeout(resolve, 1500)));\n';

/** Replies by the last user text, so every front end gets the same answers whatever the order of requests. */
function reply({ body }: { body: { messages?: { role: string; content: unknown }[] } }) {
  const last = body.messages?.at(-1);
  if (last?.role === "tool") return { text: "answer after the slow tool" };
  const text = JSON.stringify(last?.content ?? "");
  if (text.includes("second question"))
    return { toolCalls: [{ name: "bash", arguments: { command: "sleep 1; echo slow" } }] };
  if (text.includes("Explain notes.txt")) return { text: "answer to the template" };
  return { text: "answer to the first question" };
}

async function prepare(): Promise<{ cwd: string; home: string }> {
  const { cwd, home } = await createWorkspace();
  await writeFixtures(cwd, home);
  return { cwd, home };
}

/** The file, the slow-ending extension and the prompt template every front end works with. */
async function writeFixtures(cwd: string, home: string): Promise<void> {
  await writeFile(join(cwd, "notes.txt"), "notes\n");
  await writeFile(join(cwd, "slow-end.ts"), slowEnd);
  await mkdir(join(home, "prompts"), { recursive: true });
  await writeFile(
    join(home, "prompts", "explainit.md"),
    "---\ndescription: Explain\n---\nExplain $1 like I am new here.\n",
  );
}

/** The journal without ids and times: each session file (oldest first) as its entries' kinds and texts. */
async function journal(home: string): Promise<string[][]> {
  const files = await readSessionFiles(home);
  const described = files.map(({ entries }) => ({
    at: String(entries[0]?.timestamp ?? ""),
    lines: entries.map(describeEntry).filter((line): line is string => line !== undefined),
  }));
  return described.sort((a, b) => a.at.localeCompare(b.at)).map((file) => file.lines);
}

function describeEntry(entry: Record<string, unknown>): string | undefined {
  if (entry.type === "session") return "session";
  if (entry.type === "message") {
    const message = entry.message as { role: string; content: unknown; toolName?: string };
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const parts = (content as { type: string; text?: string; name?: string }[]).map((part) =>
      part.type === "text" ? (part.text ?? "").trim() : part.type === "toolCall" ? `call ${part.name}` : part.type,
    );
    return `${message.role}: ${parts.join(" | ")}`;
  }
  if (entry.type === "custom") return `custom ${String(entry.customType)}`;
  if (entry.type === "checkpoint") return `checkpoint ${String(entry.reason)}`;
  // Model and thinking records, labels: what each front end starts with; the ops' effect is in the rest.
  if (entry.type === "model_change" || entry.type === "thinking_level_change") return undefined;
  return String(entry.type);
}

let server: FakeModelServer | undefined;
let rpc: RpcClient | undefined;
afterEach(async () => {
  await stopGyres();
  await (rpc as RpcClient | undefined)?.close();
  rpc = undefined;
  await server?.close();
  server = undefined;
});

async function closeServer(): Promise<void> {
  const open = server;
  server = undefined;
  await open?.close();
}

async function throughTui(): Promise<string[][]> {
  const { tmux, home } = await startGyre(reply, {
    args: ["-e", "slow-end.ts"],
    setup: ({ cwd, home }) => writeFixtures(cwd, home),
  });
  await submit(tmux, "first question");
  await tmux.waitFor("answer to the first question");
  await submit(tmux, "/explainit notes.txt");
  await tmux.waitFor("answer to the template");
  await submit(tmux, "/new");
  await tmux.waitFor("New session started.");
  await submit(tmux, "!echo shell-output");
  await tmux.waitFor(/shell-output[\s\S]*exit 0/);
  await submit(tmux, "second question");
  await tmux.waitFor("sleep 1");
  await tmux.send(["BTab"]);
  await tmux.waitFor("The permission mode changes once the run ends");
  await tmux.waitFor("answer after the slow tool");
  await tmux.waitFor("Plan mode: bash is read-only");
  await submit(tmux, "/rewind");
  await tmux.waitFor("Rewind to before which message?");
  await tmux.send(["Enter"]);
  await tmux.waitFor("Restore what?");
  await tmux.send(["Enter"]);
  await tmux.waitFor("Rewind?");
  await tmux.send(["Enter"]);
  await tmux.waitFor("Rewound");
  return eventually(async () => {
    const files = await journal(home);
    return files.length === 2 && files[1]?.at(-1) !== "user: second question" ? files : undefined;
  }, "the TUI's journal");
}

async function throughRpc(): Promise<string[][]> {
  const { cwd, home } = await prepare();
  server = await startFakeModelServer({ respond: reply });
  rpc = new RpcClient({
    command: gyreBin,
    args: ["--provider", "openai", "--model", "gpt-4o", "-e", "slow-end.ts"],
    cwd,
    env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
  });
  const client = rpc;
  const answered = client.waitForEvent((event) => isAnswer(event, "answer to the first question"));
  expect((await client.send({ type: "prompt", message: "first question" })).success).toBe(true);
  await answered;
  // Sent once the answer is there, while the run is being written away: it waits, then runs.
  expect(await client.send({ type: "command", name: "explainit", args: "notes.txt" })).toMatchObject({ success: true });
  expect(await client.send({ type: "new" })).toMatchObject({ success: true });
  expect(await client.send({ type: "shell", command: "echo shell-output" })).toMatchObject({ success: true });
  const toolStarted = client.waitForEvent((event) => event.type === "tool_execution_start");
  expect((await client.send({ type: "prompt", message: "second question" })).success).toBe(true);
  await toolStarted;
  expect(await client.send({ type: "set_mode", mode: "toggle" })).toMatchObject({
    success: true,
    data: { mode: "plan" },
  });
  const points = (await client.send({ type: "get_rewind_points" })).data as { points: { entryId: string }[] };
  const target = points.points[0]?.entryId ?? "";
  expect(await client.send({ type: "rewind", entryId: target, restore: "both" })).toMatchObject({ success: true });
  await client.close();
  rpc = undefined;
  return journal(home);
}

async function throughSdk(): Promise<string[][]> {
  const { cwd, home } = await prepare();
  server = await startFakeModelServer({ respond: reply });
  const { session, dispose } = await createAgentSession({
    cwd,
    gyreHome: home,
    provider: "openai",
    modelId: "gpt-4o",
    baseUrl: `${server.url}/v1`,
    apiKey: "sk-test",
    session: "new",
    extensions: { paths: ["slow-end.ts"] },
  });
  const answered = new Promise<void>((resolve) => {
    const off = session.subscribe((event) => {
      if (isAnswer(event, "answer to the first question")) {
        off();
        resolve();
      }
    });
  });
  const first = session.submit({ type: "prompt", text: "first question" });
  await answered;
  await session.submit({ type: "command", name: "explainit", args: "notes.txt" });
  await first;
  await session.submit({ type: "new" });
  await session.submit({ type: "shell", command: "echo shell-output" });
  const toolStarted = new Promise<void>((resolve) => {
    const off = session.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        off();
        resolve();
      }
    });
  });
  const second = session.submit({ type: "prompt", text: "second question" });
  await toolStarted;
  expect(await session.submit({ type: "set_mode", mode: "toggle" })).toEqual({ mode: "plan" });
  await second;
  const [target] = session.rewindTargets();
  await session.submit({ type: "rewind", entryId: target?.entryId ?? "", restore: "both" });
  await dispose();
  return journal(home);
}

function isAnswer(event: SessionEvent | { type: string }, text: string): boolean {
  if (event.type !== "message_end") return false;
  const message = (event as Extract<SessionEvent, { type: "message_end" }>).message;
  return message.role === "assistant" && JSON.stringify(message.content).includes(text);
}

describe("the same ops through the TUI, RPC and the SDK", () => {
  it("write the same journal", async () => {
    const sdk = await throughSdk();
    await closeServer();
    const viaRpc = await throughRpc();
    await closeServer();
    const tui = await throughTui();
    // The sequence did what it says: two sessions; the template ran; the shell and the rewind are recorded.
    expect(sdk).toHaveLength(2);
    expect(sdk[0]).toContain("user: Explain notes.txt like I am new here.");
    expect(sdk[1]?.join("\n")).toContain("shell-output");
    expect(sdk[1]).toContain("checkpoint rewind");
    expect(viaRpc).toEqual(sdk);
    expect(tui).toEqual(sdk);
  }, 120_000);
});
