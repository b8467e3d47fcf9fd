/**
 * Rewind when `git` is not on PATH: write and edit are rewound from the copies gyre saved of the
 * files they replaced; bash changes are not, and gyre says so.
 */
import { mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { pictureOf, readSessionLines } from "./workspace.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A PATH with every program of /usr/bin and /bin but git. */
async function pathWithoutGit(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-nogit-bin-"));
  for (const source of ["/usr/bin", "/bin"])
    for (const name of await readdir(source).catch(() => [] as string[])) {
      if (name.startsWith("git")) continue;
      await symlink(join(source, name), join(dir, name)).catch(() => {});
    }
  return dir;
}

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
});
