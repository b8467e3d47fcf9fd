import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, fixturePath, tempDir, userMessage } from "../../../test/session/helpers.js";
import { readSessionFile } from "./read-session.js";
import type { SessionEntry } from "./types.js";

const fixtures = [
  "good.jsonl",
  "torn-tail.jsonl",
  "garbage-middle.jsonl",
  "nul-block.jsonl",
  "orphaned-tool-call.jsonl",
  "parallel-calls-two-results.jsonl",
];
// 64 bytes puts almost every line across reads (and forces buffers to grow); the tail look then
// sees no compaction, so a compacted file is read both ways: kept bytes and read twice.
const chunkSizes = [64, 1000, undefined];

/** Everything a resume and the tree views show of a file. */
async function viewOf(path: string, chunkSize: number | undefined) {
  const { SessionManager } = await import("./session-manager.js");
  const loaded = await readSessionFile(path, chunkSize === undefined ? {} : { chunkSize });
  const session = await SessionManager.open(path, { readOnly: true });
  // The manager reads with the default size; compare its tree-level views to this one's too.
  const tree = loaded.tree;
  const leaf = tree.lastId();
  const path_ = tree.pathRows(leaf);
  const context = tree.entries(path_.slice(tree.contextStart(path_)));
  return {
    header: loaded.header,
    endsWithNewline: loaded.endsWithNewline,
    leaf,
    branch: tree.branch(leaf),
    context,
    all: tree.all(),
    problems: [...tree.problems].sort((a, b) => a.line - b.line),
    name: tree.sessionName(),
    managerContext: session.buildContext(),
  };
}

/** A session with branches, labels, a name, a compaction and a non-ASCII message. */
function branchedSession(): string {
  let n = 0;
  const entries: SessionEntry[] = [];
  const add = (parentId: string | null, data: Record<string, unknown>) => {
    const id = (0xa0000000 + ++n).toString(16);
    entries.push({
      type: "message",
      id,
      parentId,
      timestamp: new Date(n * 1000).toISOString(),
      ...data,
    } as SessionEntry);
    return id;
  };
  let leaf: string | null = null;
  const ids: string[] = [];
  for (let turn = 0; turn < 40; turn++) {
    leaf = add(leaf, { type: "message", message: userMessage(`turn ${turn} ${"é ✓ 字".repeat(turn % 3)}`) });
    ids.push(leaf);
    leaf = add(leaf, { type: "message", message: assistantMessage([{ type: "text", text: "x".repeat(turn * 40) }]) });
    if (turn === 10) add(ids[5] ?? null, { type: "message", message: userMessage("a side branch") });
    if (turn === 20) leaf = add(leaf, { type: "label", targetId: ids[3], label: "bookmark" });
    if (turn === 25)
      leaf = add(leaf, { type: "compaction", summary: "older turns", firstKeptEntryId: ids[22], tokensBefore: 1000 });
    if (turn === 30) leaf = add(leaf, { type: "session_info", name: "branched" });
    // After the last answer: a model change later than every answer is what a resume continues on.
    if (turn === 39) leaf = add(leaf, { type: "model_change", provider: "faux", modelId: "faux-2" });
  }
  const header = { type: "session", version: 1, id: "c0ffee00-0000-4000-8000-000000000000", timestamp: "x", cwd: "/w" };
  return `${[header, ...entries].map((entry) => JSON.stringify(entry)).join("\n")}\n`;
}

/** The branch to the last line, found by parsing every line: what the reader must agree with. */
function naiveBranchIds(text: string): string[] {
  const entries = text
    .split("\n")
    .slice(1)
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as SessionEntry);
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const ids: string[] = [];
  for (let entry = entries.at(-1); entry !== undefined; entry = byId.get(entry.parentId ?? "")) ids.unshift(entry.id);
  return ids;
}

describe("reading a session in chunks", () => {
  it.each(fixtures)("gives the same tree and context at every read size: %s", async (name) => {
    const expected = await viewOf(fixturePath(name), undefined);
    for (const chunkSize of chunkSizes) expect(await viewOf(fixturePath(name), chunkSize)).toEqual(expected);
  });

  it("gives the same tree and context at every read size for a branched, compacted file", async () => {
    const path = join(await tempDir(), "branched.jsonl");
    const text = branchedSession();
    await writeFile(path, text);
    const expected = await viewOf(path, undefined);
    expect(expected.branch.map((entry) => entry.id)).toEqual(naiveBranchIds(text));
    expect(expected.context[0]).toMatchObject({ type: "message", message: { content: "turn 22 é ✓ 字" } });
    expect(expected.name).toBe("branched");
    expect(expected.managerContext.model).toEqual({ provider: "faux", modelId: "faux-2" });
    expect(expected.all.length).toBeGreaterThan(expected.branch.length);
    expect(expected.context.length).toBeLessThan(expected.branch.length);
    for (const chunkSize of chunkSizes) expect(await viewOf(path, chunkSize)).toEqual(expected);
  });

  it("gives the same context when the whole file is one branch, read once or twice", async () => {
    const path = join(await tempDir(), "linear.jsonl");
    // Without the compaction and side branch, every line is in the context: the reader parses each as it reads it.
    const [header, ...lines] = branchedSession()
      .split("\n")
      .filter((line) => line !== "" && !line.includes('"compaction"') && !line.includes("a side branch"));
    // The compaction's child points past the removed line: link it to the line before it.
    let previous: string | null = null;
    const linked = lines.map((line) => {
      const entry = { ...(JSON.parse(line) as SessionEntry), parentId: previous };
      previous = entry.id;
      return JSON.stringify(entry);
    });
    const text = `${[header, ...linked].join("\n")}\n`;
    await writeFile(path, text);
    const expected = await viewOf(path, undefined);
    expect(expected.branch.map((entry) => entry.id)).toEqual(naiveBranchIds(text));
    expect(expected.context).toEqual(expected.branch);
    expect(expected.problems).toEqual([]);
    for (const chunkSize of chunkSizes) expect(await viewOf(path, chunkSize)).toEqual(expected);
  });
});

describe("a line above the session line cap", () => {
  it("is skipped as damaged across chunk sizes, and every other entry is read", async () => {
    const { readFile } = await import("node:fs/promises");
    const good = await readFile(fixturePath("good.jsonl"), "utf8");
    const lines = good.trimEnd().split("\n");
    const huge = `{"type":"message","id":"huge","parentId":null,"message":${JSON.stringify({ role: "user", content: "h".repeat(20_000) })}}`;
    const path = join(await tempDir(), "huge-line.jsonl");
    await writeFile(path, `${[lines[0], huge, ...lines.slice(1)].join("\n")}\n`);
    const plain = await readSessionFile(fixturePath("good.jsonl"));
    for (const chunkSize of [1024, 4096]) {
      const loaded = await readSessionFile(path, { chunkSize, maxLineBytes: 8 * 1024 });
      expect(loaded.tree.all().map((entry: SessionEntry) => entry.id)).toEqual(
        plain.tree.all().map((entry) => entry.id),
      );
      expect(loaded.tree.problems).toEqual([
        { line: 2, message: "the line is 20 KB, above the 8 KB a session line may have; skipped as damaged" },
      ]);
      expect(loaded.endsWithNewline).toBe(true);
    }
    // Last in the file, without its newline: skipped the same way, and the next append starts a new line.
    await writeFile(path, `${good}${huge}`);
    const torn = await readSessionFile(path, { chunkSize: 1024, maxLineBytes: 8 * 1024 });
    expect(torn.tree.all()).toHaveLength(plain.tree.all().length);
    expect(torn.endsWithNewline).toBe(false);
    expect(torn.tree.problems[0]?.message).toMatch(/skipped as damaged$/);
  });
});
