import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { previewRewind, rewind } from "../../src/core/checkpoints/rewind.js";
import { bash, createHarness, done, write } from "./agent-harness.js";
import { createProject, hashDirectory, pictureOf } from "./workspace.js";

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function setUp() {
  const root = await mkdtemp(join(tmpdir(), "gyre-rewind-"));
  created.push(root);
  const workspace = join(root, "project");
  const gyreHome = join(root, "home");
  const markers = join(root, "markers");
  await Promise.all([workspace, gyreHome, markers].map((dir) => mkdir(dir)));
  createProject(workspace, markers);
  const harness = await createHarness({ workspace, gyreHome });
  const picture = () => pictureOf(workspace, { skip: [".git"] });
  return { workspace, gyreHome, markers, harness, picture };
}

const AGENT_CHANGES = [
  bash("sed -i 's/two/TWO/' crlf.txt && rm doomed.txt && mv run.sh renamed.sh && chmod +x src/main.ts"),
  write("notes/new.md", "written by the agent\n"),
  done,
];

describe("rewind", () => {
  it("takes back a run's bash and write changes, files and conversation, and can be undone", async () => {
    const { workspace, harness, picture } = await setUp();
    const before = picture();
    const first = await harness.prompt("change the files", AGENT_CHANGES);
    const after = picture();
    expect(after).not.toEqual(before);
    const kinds = harness.session.getBranch().flatMap((entry) => (entry.type === "checkpoint" ? [entry.reason] : []));
    expect(kinds).toEqual(["turn", "turn_end"]);

    const preview = await previewRewind({
      session: harness.session,
      repository: harness.repository,
      entryId: first,
      restore: "both",
    });
    expect(preview.changes.map((change) => `${change.status} ${change.path}`).sort()).toEqual([
      "added doomed.txt",
      "added run.sh",
      "deleted notes/new.md",
      "deleted renamed.sh",
      "modified crlf.txt",
      "modified src/main.ts",
    ]);
    expect(preview.conflicts).toEqual([]);
    expect(picture()).toEqual(after);

    const result = await rewind({
      session: harness.session,
      repository: harness.repository,
      entryId: first,
      restore: "both",
    });
    expect(picture()).toEqual(before);
    expect(await readFile(join(workspace, "crlf.txt"), "utf8")).toBe("one\r\ntwo\r\nthree\r\n");
    expect(harness.session.buildContext().messages).toEqual([]);

    await rewind({
      session: harness.session,
      repository: harness.repository,
      entryId: result.undoEntryId as string,
      restore: "both",
    });
    expect(picture()).toEqual(after);
    expect(harness.session.buildContext().messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("keeps a file changed outside gyre as a conflict unless forced", async () => {
    const { workspace, harness } = await setUp();
    const first = await harness.prompt("edit", [bash("echo agent >> crlf.txt && echo agent > src/main.ts"), done]);
    await writeFile(join(workspace, "src", "main.ts"), "the user's own edit\n");
    const options = {
      session: harness.session,
      repository: harness.repository,
      entryId: first,
      restore: "code" as const,
    };
    const kept = await rewind(options);
    expect(kept.conflicts).toEqual(["src/main.ts"]);
    expect(kept.restored.map((change) => change.path)).toEqual(["crlf.txt"]);
    expect(await readFile(join(workspace, "src", "main.ts"), "utf8")).toBe("the user's own edit\n");
    expect(await readFile(join(workspace, "crlf.txt"), "utf8")).toBe("one\r\ntwo\r\nthree\r\n");

    const forced = await rewind({ ...options, force: true });
    expect(forced.restored.map((change) => change.path)).toEqual(["src/main.ts"]);
    expect(await readFile(join(workspace, "src", "main.ts"), "utf8")).toBe("export const a = 1;\n");
    // A code-only rewind leaves the conversation where it was.
    expect(harness.session.buildContext().messages.at(0)?.role).toBe("user");
  });

  it("restores the files of another /tree branch", async () => {
    const { workspace, harness } = await setUp();
    const a1 = await harness.prompt("a1", [write("a.txt", "from a1\n"), done]);
    const a2 = await harness.prompt("a2", [bash("echo a2 >> a.txt"), done]);
    await rewind({ session: harness.session, repository: harness.repository, entryId: a1, restore: "both" });
    expect(existsSync(join(workspace, "a.txt"))).toBe(false);
    await harness.prompt("b1", [write("b.txt", "from b1\n"), done]);
    expect(harness.session.getBranch().some((entry) => entry.id === a2)).toBe(false);

    const result = await rewind({
      session: harness.session,
      repository: harness.repository,
      entryId: a2,
      restore: "both",
    });
    expect(result.conflicts).toEqual([]);
    expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("from a1\n");
    expect(existsSync(join(workspace, "b.txt"))).toBe(false);
    // The conversation continues from before a2 (after the checkpoint the rewind left).
    const leaf = harness.session.getEntry(harness.session.leafId as string);
    expect(leaf).toMatchObject({
      type: "checkpoint",
      reason: "turn_end",
      parentId: harness.session.getEntry(a2)?.parentId,
    });
  });

  it("leaves the project's .git byte-identical through a whole session and runs none of its hooks", async () => {
    const { workspace, markers, harness } = await setUp();
    const gitBefore = hashDirectory(join(workspace, ".git"));
    const first = await harness.prompt("change", AGENT_CHANGES);
    await harness.prompt("more", [bash("cat .git/HEAD > /dev/null; echo x > extra.txt"), done]);
    await rewind({ session: harness.session, repository: harness.repository, entryId: first, restore: "both" });
    await harness.session.close();
    expect(hashDirectory(join(workspace, ".git"))).toBe(gitBefore);
    expect(await readdir(markers)).toEqual([]);
  });

  it("says a 200 MB file was skipped and leaves it alone", async () => {
    const { harness } = await setUp();
    const first = await harness.prompt("big", [bash("truncate -s 200M big.bin && echo small > small.txt"), done]);
    await harness.prompt("again", [bash("echo more >> big.bin"), done]);
    expect(harness.notices.some((notice) => notice.includes("skipped big.bin"))).toBe(true);
    const second = harness.session
      .getBranch()
      .find((entry) => entry.type === "message" && entry.id !== first && entry.message.role === "user");
    const preview = await previewRewind({
      session: harness.session,
      repository: harness.repository,
      entryId: second?.id as string,
      restore: "code",
    });
    expect(preview.skipped.map((file) => file.path)).toEqual(["big.bin"]);
    expect(preview.changes).toEqual([]);
  });
  it("ends a write-only run with a snapshot of just the files it wrote, and rewinds it", async () => {
    const { workspace, harness, picture } = await setUp();
    const before = picture();
    const asked: (readonly string[] | undefined)[] = [];
    const snapshot = harness.repository.snapshot.bind(harness.repository);
    harness.repository.snapshot = (options = {}) => {
      asked.push(options.paths);
      return snapshot(options);
    };
    const first = await harness.prompt("write", [
      write("notes/new.md", "one\n"),
      write(join(workspace, "crlf.txt"), "two\n"),
      write("../outside.txt", "not the workspace's\n"),
      done,
    ]);
    await harness.prompt("bash", [bash("echo three > notes/new.md"), done]);
    // Before each run a full scan; after the write-only run just its two files.
    expect(asked).toEqual([undefined, ["notes/new.md", "crlf.txt"], undefined, undefined]);
    const ends = harness.session.getBranch().flatMap((entry) => (entry.type === "checkpoint" ? [entry.files] : []));
    expect(ends[1]?.sort()).toEqual(["crlf.txt", "notes/new.md"]);
    await rewind({ session: harness.session, repository: harness.repository, entryId: first, restore: "code" });
    expect(picture()).toEqual(before);
  });
});
