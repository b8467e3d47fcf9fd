/**
 * Rewind when `git` is not on PATH: write and edit are rewound from the copies gyre saved of the
 * files they replaced; bash changes are not, and gyre says so.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { pathWithoutGit, pictureOf, readSessionLines } from "./workspace.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const args = ["--provider", "openai", "--model", "gpt-4o", "--sandbox", "off", "--tools", "read,write,edit,bash"];

describe("rewind without git", () => {
  it("restores what write and edit changed from saved copies and says bash is not covered", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "crlf.txt"), "one\r\ntwo\r\n");
    await writeFile(join(cwd, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    await mkdir(join(cwd, "src"));
    const original = pictureOf(cwd);
    server = await startFakeModelServer({
      respond: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== "user") return { text: "done" };
        if (JSON.stringify(last.content).includes("first"))
          return {
            toolCalls: [
              { name: "write", arguments: { path: "src/new.txt", content: "made by gyre\n" } },
              { name: "edit", arguments: { path: "crlf.txt", edits: [{ oldText: "two", newText: "TWO" }] } },
              { name: "edit", arguments: { path: "run.sh", edits: [{ oldText: "hi", newText: "bye" }] } },
              { name: "bash", arguments: { command: "echo by bash > bash.txt" } },
            ],
          };
        return {
          toolCalls: [{ name: "edit", arguments: { path: "crlf.txt", edits: [{ oldText: "one", newText: "1" }] } }],
        };
      },
    });
    const env = cliEnv(home, {
      PATH: await pathWithoutGit(),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "sk-test",
    });
    const first = await runCli([...args, "-p", "first"], { cwd, env });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("bash changes cannot be rewound");
    const afterFirst = pictureOf(cwd);
    expect((await runCli([...args, "-c", "-p", "second"], { cwd, env })).code).toBe(0);
    expect(await readFile(join(cwd, "crlf.txt"), "utf8")).toBe("1\r\nTWO\r\n");

    const { path, lines } = await readSessionLines(home);
    // One pre- and one post-image per write or edit (three in the first run, one in the second).
    const phases = lines.filter((line) => line.type === "file_images").map((line) => line.phase);
    expect(phases.sort()).toEqual([...Array(4).fill("after"), ...Array(4).fill("before")]);
    const [firstPrompt, secondPrompt] = lines
      .filter((line) => line.type === "message" && line.message?.role === "user")
      .map((line) => line.id as string);

    const toSecond = await runCli(["--session", path, "--rewind", secondPrompt as string, "--restore", "code"], {
      cwd,
      env,
    });
    expect(toSecond.code).toBe(0);
    expect(pictureOf(cwd)).toEqual(afterFirst);

    const toFirst = await runCli(["--session", path, "--rewind", firstPrompt as string], { cwd, env });
    expect(toFirst.code).toBe(0);
    const result = JSON.parse(toFirst.stdout) as { restored: { path: string; status: string }[]; undoEntryId: string };
    expect(result.restored.map((change) => `${change.status} ${change.path}`).sort()).toEqual([
      "deleted src/new.txt",
      "modified crlf.txt",
      "modified run.sh",
    ]);
    expect(toFirst.stderr).toContain("changes made by bash are not covered");
    // bash.txt stays: nothing saved a copy of it.
    expect(pictureOf(cwd, { skip: ["bash.txt"] })).toEqual(original);
    expect((await stat(join(cwd, "run.sh"))).mode & 0o777).toBe(0o755);

    const undo = await runCli(["--session", path, "--rewind", result.undoEntryId], { cwd, env });
    expect(undo.code).toBe(0);
    expect(pictureOf(cwd)).toEqual(afterFirst);
  });

  it("keeps a file changed outside gyre since its write unless forced", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "notes.txt"), "original\n");
    server = await startFakeModelServer({
      respond: ({ body }) =>
        body.messages?.at(-1)?.role === "user"
          ? { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "by gyre\n" } }] }
          : { text: "done" },
    });
    const env = cliEnv(home, {
      PATH: await pathWithoutGit(),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "k",
    });
    expect((await runCli([...args, "-p", "go"], { cwd, env })).code).toBe(0);
    await writeFile(join(cwd, "notes.txt"), "by the user\n");
    const { path, lines } = await readSessionLines(home);
    const user = lines.find((line) => line.message?.role === "user")?.id as string;
    const kept = await runCli(["--session", path, "--rewind", user, "--restore", "code"], { cwd, env });
    expect(JSON.parse(kept.stdout)).toMatchObject({ conflicts: ["notes.txt"] });
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("by the user\n");
    await runCli(["--session", path, "--rewind", user, "--restore", "code", "--force"], { cwd, env });
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("original\n");
  });
  it("restores the files of another /tree branch from the copies recorded along that branch", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "shared.txt"), "original\n");
    const answers: Record<string, { name: string; arguments: unknown }[]> = {
      a1: [
        { name: "write", arguments: { path: "a.txt", content: "from a1\n" } },
        { name: "edit", arguments: { path: "shared.txt", edits: [{ oldText: "original", newText: "a1" }] } },
      ],
      a2: [
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "a1", newText: "a2" }] } },
        { name: "write", arguments: { path: "late.txt", content: "only on branch a, after a2\n" } },
      ],
      b1: [
        { name: "write", arguments: { path: "b.txt", content: "from b1\n" } },
        { name: "edit", arguments: { path: "shared.txt", edits: [{ oldText: "original", newText: "b1" }] } },
      ],
    };
    server = await startFakeModelServer({
      respond: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== "user") return { text: "done" };
        const prompt = JSON.stringify(last.content).replace(/\W/g, "");
        return { toolCalls: answers[prompt] ?? [] };
      },
    });
    const env = cliEnv(home, {
      PATH: await pathWithoutGit(),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "k",
    });
    expect((await runCli([...args, "-p", "a1"], { cwd, env })).code).toBe(0);
    const afterA1 = pictureOf(cwd);
    expect((await runCli([...args, "-c", "-p", "a2"], { cwd, env })).code).toBe(0);
    const afterA2 = pictureOf(cwd);
    const { path } = await readSessionLines(home);
    const userId = async (text: string) =>
      (await readSessionLines(home)).lines.find(
        (line) => line.message?.role === "user" && JSON.stringify(line.message.content).includes(text),
      )?.id as string;
    const a1 = await userId("a1");
    const a2 = await userId("a2");

    // Back to before a1 (files and conversation), then a new branch b1 from there.
    expect((await runCli(["--session", path, "--rewind", a1], { cwd, env })).code).toBe(0);
    expect(await readFile(join(cwd, "shared.txt"), "utf8")).toBe("original\n");
    expect((await runCli([...args, "-c", "-p", "b1"], { cwd, env })).code).toBe(0);
    expect(await readFile(join(cwd, "shared.txt"), "utf8")).toBe("b1\n");

    // To a2 on branch a: the files as a1 left them; b1's file goes, late.txt (later on a) does not exist yet.
    const toA2 = await runCli(["--session", path, "--rewind", a2], { cwd, env });
    expect(toA2.code).toBe(0);
    expect(JSON.parse(toA2.stdout)).toMatchObject({ conflicts: [] });
    expect(pictureOf(cwd)).toEqual(afterA1);

    // On along branch a: to the end of a2's run (its last copy before the rewind) needs a2's copies.
    const { lines } = await readSessionLines(home);
    const firstRewind = lines.findIndex((line) => line.type === "file_images" && line.reason === "rewind");
    const endOfA2 = lines
      .slice(0, firstRewind)
      .filter((line) => line.type === "file_images" && line.phase === "after")
      .pop()?.id as string;
    expect((await runCli(["--session", path, "--rewind", endOfA2, "--restore", "code"], { cwd, env })).code).toBe(0);
    expect(pictureOf(cwd)).toEqual(afterA2);
  });

  it("takes the files before a message from the copies of its own run and branch, not another's", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "notes.txt"), "original\n");
    server = await startFakeModelServer({
      respond: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== "user") return { text: "done" };
        const text = JSON.stringify(last.content).includes("a1") ? "a1\n" : "b1\n";
        return { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: text } }] };
      },
    });
    const env = cliEnv(home, {
      PATH: await pathWithoutGit(),
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_API_KEY: "k",
    });
    const users = async () =>
      (await readSessionLines(home)).lines.filter((line) => line.message?.role === "user").map((line) => line.id);
    expect((await runCli([...args, "-p", "a1"], { cwd, env })).code).toBe(0);
    const { path } = await readSessionLines(home);
    const [a1] = (await users()) as [string];
    expect((await runCli(["--session", path, "--rewind", a1], { cwd, env })).code).toBe(0);
    // Between the branches the user changes the file; b1 (a new branch, in a new process) starts from that.
    await writeFile(join(cwd, "notes.txt"), "the user's\n");
    expect((await runCli([...args, "-c", "-p", "b1"], { cwd, env })).code).toBe(0);
    const b1 = (await users()).at(-1) as string;
    const { lines } = await readSessionLines(home);
    const ancestors = (id: string | undefined): string[] => {
      const parent = lines.find((line) => line.id === id)?.parentId as string | undefined;
      return parent ? [parent, ...ancestors(parent)] : [];
    };
    // The rewind's leaf survived the restart: b1 is not under a1.
    expect(ancestors(b1)).not.toContain(a1);

    expect((await runCli(["--session", path, "--rewind", b1, "--restore", "code"], { cwd, env })).code).toBe(0);
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("the user's\n");
    const toA1 = await runCli(["--session", path, "--rewind", a1, "--restore", "code"], { cwd, env });
    expect(JSON.parse(toA1.stdout)).toMatchObject({ conflicts: [] });
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("original\n");
  });
});
