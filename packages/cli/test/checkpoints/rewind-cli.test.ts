import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createUserMessage } from "@gyre/agent";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { shellResultText } from "../../src/core/user-shell.js";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin, runCli } from "../helpers/run-cli.js";
import { createProject, hashDirectory, pictureOf, readSessionLines, type SessionLine } from "./workspace.js";

let server: FakeModelServer | undefined;
let client: RpcClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

const userEntryIds = (lines: SessionLine[]) =>
  lines.filter((line) => line.type === "message" && line.message?.role === "user").map((line) => line.id as string);

async function setUp() {
  const { cwd, home } = await createWorkspace();
  const markers = join(home, "..", "markers");
  await mkdir(markers);
  createProject(cwd, markers);
  return { cwd, home, markers, picture: () => pictureOf(cwd, { skip: [".git"] }) };
}

/** A model that runs `command` with bash on its first call of each prompt, then says it is done. */
function bashThenDone(command: string) {
  return startFakeModelServer({
    respond: ({ body }) => {
      const last = body.messages?.at(-1);
      return last?.role === "user" ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { text: "done" };
    },
  });
}

const args = ["--provider", "openai", "--model", "gpt-4o"];

describe("rewind from RPC and the command line", () => {
  it("previews and rewinds over RPC, then undoes the rewind", async () => {
    const { cwd, home, markers, picture } = await setUp();
    const gitBefore = hashDirectory(join(cwd, ".git"));
    const before = picture();
    server = await bashThenDone("sed -i 's/one/ONE/' crlf.txt && rm doomed.txt && echo new > new.txt");
    client = new RpcClient({
      command: gyreBin,
      args,
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    });
    const ended = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "change things" });
    await ended;
    const after = picture();
    // The end-of-run checkpoint is recorded just after agent_end reaches the client.
    let { lines } = await readSessionLines(home);
    for (let tries = 0; tries < 100 && !lines.some((line) => line.reason === "turn_end"); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ({ lines } = await readSessionLines(home));
    }
    expect(lines.filter((line) => line.type === "checkpoint").map((line) => line.reason)).toEqual(["turn", "turn_end"]);
    // A client finds the entry to rewind to over RPC, not in the session file.
    const points = (await client.send({ type: "get_rewind_points" })).data as { points: Record<string, unknown>[] };
    expect(points.points).toEqual([
      { entryId: userEntryIds(lines)[0], kind: "message", label: "change things", text: "change things" },
    ]);
    const first = points.points[0]?.entryId as string;

    const preview = await client.send({ type: "rewind", entryId: first as string, preview: true });
    expect(preview.success).toBe(true);
    const changes = (preview.data as { changes: { path: string; status: string }[] }).changes;
    expect(changes.map((change) => `${change.status} ${change.path}`).sort()).toEqual([
      "added doomed.txt",
      "deleted new.txt",
      "modified crlf.txt",
    ]);
    expect(picture()).toEqual(after);

    const rewound = await client.send({ type: "rewind", entryId: first as string, restore: "both" });
    expect(rewound.success).toBe(true);
    expect(picture()).toEqual(before);
    expect(((await client.send({ type: "get_messages" })).data as { messages: unknown[] }).messages).toEqual([]);

    const undo = (rewound.data as { undoEntryId: string }).undoEntryId;
    const afterRewind = (await client.send({ type: "get_rewind_points" })).data as { points: { entryId: string }[] };
    expect(afterRewind.points).toEqual([{ entryId: undo, kind: "undo", label: "Undo the last rewind" }]);
    expect((await client.send({ type: "rewind", entryId: undo })).success).toBe(true);
    expect(picture()).toEqual(after);
    expect(((await client.send({ type: "get_messages" })).data as { messages: unknown[] }).messages).toHaveLength(4);

    const bad = await client.send({ type: "rewind", entryId: "ffffffff" });
    expect(bad).toMatchObject({ success: false });
    expect(bad.error).toContain("not a user message or checkpoint");
    // Once a message was sent after a rewind, undoing that rewind is offered last, not first.
    const again = client.waitForEvent((event) => event.type === "agent_end");
    await client.send({ type: "prompt", message: "once more" });
    await again;
    const later = (await client.send({ type: "get_rewind_points" })).data as { points: { kind: string }[] };
    expect(later.points.map((point) => point.kind)).toEqual(["message", "message", "undo"]);
    await client.close();
    client = undefined;
    expect(hashDirectory(join(cwd, ".git"))).toBe(gitBefore);
    expect(await readdir(markers)).toEqual([]);
  });

  it("rewinds code with --session --rewind and keeps a file edited outside gyre unless --force", async () => {
    const { cwd, home, picture } = await setUp();
    const before = picture();
    server = await bashThenDone("echo agent >> crlf.txt && echo agent >> bom.txt");
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    const none = await runCli(["-c", "--rewind", "list"], { cwd, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("There is no session in this folder to rewind");
    expect((await runCli([...args, "-p", "edit"], { cwd, env })).code).toBe(0);
    await writeFile(join(cwd, "bom.txt"), "the user's version\n");
    const { path, lines } = await readSessionLines(home);
    const [first] = userEntryIds(lines);
    const unknown = await runCli(["--session", path, "--rewind", "ffffffff"], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("`--rewind list` shows the entries");
    // A rewind that failed recorded nothing: there is no rewind to undo.
    const listed = await runCli(["--session", path, "--rewind", "list"], { cwd, env });
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([{ type: "rewind_point", entryId: first, kind: "message", label: "edit", text: "edit" }]);

    const kept = await runCli(["--session", path, "--rewind", first as string, "--restore", "code"], { cwd, env });
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ type: "rewind", conflicts: ["bom.txt"] });
    expect(kept.stderr).toContain("add --force");
    expect(await readFile(join(cwd, "bom.txt"), "utf8")).toBe("the user's version\n");
    expect(await readFile(join(cwd, "crlf.txt"), "utf8")).toBe("one\r\ntwo\r\nthree\r\n");

    const forced = await runCli(["--session", path, "--rewind", first as string, "--restore", "code", "--force"], {
      cwd,
      env,
    });
    expect(forced.code).toBe(0);
    expect(picture()).toEqual(before);
    expect((await runCli(["--rewind", first as string], { cwd, env })).stderr).toContain("--session");
  });

  it("a conversation-only --rewind is where a later --continue carries on", async () => {
    const { cwd, home } = await setUp();
    server = await startFakeModelServer({ respond: () => ({ text: "noted" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    expect((await runCli([...args, "-p", "alpha"], { cwd, env })).code).toBe(0);
    expect((await runCli([...args, "-c", "-p", "beta"], { cwd, env })).code).toBe(0);
    const { path, lines } = await readSessionLines(home);
    const [, second] = userEntryIds(lines);
    const rewound = await runCli(["--session", path, "--rewind", second as string, "--restore", "conversation"], {
      cwd,
      env,
    });
    expect(rewound.code).toBe(0);
    expect((await runCli([...args, "-c", "-p", "gamma"], { cwd, env })).code).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(sent).toContain("alpha");
    expect(sent).toContain("gamma");
    expect(sent).not.toContain("beta");
  });

  it("lists a !cmd entry by its command, not by the text the model sees", async () => {
    const { cwd, home } = await setUp();
    server = await startFakeModelServer({ respond: () => ({ text: "noted" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    expect((await runCli([...args, "-p", "alpha"], { cwd, env })).code).toBe(0);
    const { path } = await readSessionLines(home);
    const session = await SessionManager.open(path);
    const result = { command: "ls -la src", output: "a.ts", exitCode: 0, cancelled: false, timedOut: false };
    session.appendMessage(createUserMessage(shellResultText({ ...result, truncated: false, durationMs: 3 })));
    await session.close();
    const listed = await runCli(["--session", path, "--rewind", "list"], { cwd, env });
    expect(listed.code).toBe(0);
    const points = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { label: string; text?: string });
    expect(points.map((point) => point.label)).toEqual(["!ls -la src", "alpha"]);
    expect(points[0]?.text).toBe("!ls -la src");
  });

  it("a kill -9 after the checkpoint, while the tool runs, leaves a session that --continue resumes and rewind undoes", async () => {
    const { cwd, home, picture } = await setUp();
    const before = picture();
    server = await startFakeModelServer({
      respond: ({ body }) => {
        const text = JSON.stringify(body.messages?.at(-1)?.content ?? "");
        if (text.includes("first"))
          return { toolCalls: [{ name: "bash", arguments: { command: "echo x > started.txt; sleep 30" } }] };
        return { text: "resumed" };
      },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    const child = spawn(process.execPath, [gyreBin, ...args, "-p", "first"], { cwd, env, stdio: "ignore" });
    const deadline = Date.now() + 15_000;
    while (!existsSync(join(cwd, "started.txt")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
    expect((await readSessionLines(home)).lines.map((line) => line.reason ?? line.type).slice(-2)).toEqual([
      "message",
      "turn",
    ]);

    const resumed = await runCli([...args, "-c", "-p", "second"], { cwd, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("resumed");
    const { path, lines } = await readSessionLines(home);
    const toolResults = lines.filter((line) => line.type === "message" && line.message?.role === "toolResult");
    expect(toolResults).toHaveLength(1);
    // The killed run never ended, so its change is not provably gyre's: a conflict until forced.
    const [first] = userEntryIds(lines);
    const kept = JSON.parse((await runCli(["--session", path, "--rewind", first as string], { cwd, env })).stdout);
    expect(kept.conflicts).toEqual(["started.txt"]);
    await runCli(["--session", path, "--rewind", first as string, "--force"], { cwd, env });
    expect(picture()).toEqual(before);
  });
});
