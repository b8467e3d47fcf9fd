import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@gyre/agent";
import type { AssistantMessage, TextContent } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { ENTRY_TYPE_NAMES, LAZY_ENTRY_TYPES } from "./entry-types.js";
import { entryLinePrefix, readEntryPrefix, serializeEntryLine } from "./line-format.js";
import { parseSessionEntryLine } from "./parse-entry.js";
import { SessionManager } from "./session-manager.js";
import type { EntryBase, SessionEntry, SessionEntryType } from "./types.js";

/** A small seeded generator (mulberry32): the same seed gives the same entries, so a failure can be replayed. */
class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let value = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  bool(): boolean {
    return this.next() < 0.5;
  }
  /** Text with the characters JSON must escape, non-ASCII, lone surrogates excluded. */
  text(maxLength = 40): string {
    const alphabet = ["a", "Z", " ", '"', "\\", "\n", "\t", "\u0000", "\u2028", "é", "中", "😀", "{", "}", ",", ":"];
    let out = "";
    for (let index = this.int(maxLength + 1); index > 0; index--) out += this.pick(alphabet);
    return out;
  }
  hexId(): string {
    return this.int(0x1_0000_0000).toString(16).padStart(8, "0");
  }
  json(depth = 2): unknown {
    const kind = this.int(depth > 0 ? 6 : 4);
    if (kind === 0) return this.text(10);
    if (kind === 1) return this.int(1000) - 500;
    if (kind === 2) return this.bool();
    if (kind === 3) return null;
    if (kind === 4) return Array.from({ length: this.int(3) }, () => this.json(depth - 1));
    return Object.fromEntries(Array.from({ length: this.int(3) }, () => [this.text(6), this.json(depth - 1)]));
  }
}

type FieldsOf<K extends SessionEntryType> = Omit<Extract<SessionEntry, { type: K }>, keyof EntryBase>;
/** One generator per entry type; a type added to the table without one here fails to compile. */
const generators: { [K in SessionEntryType]: (random: Random, ids: string[]) => FieldsOf<K> } = {
  message: (random) => ({ type: "message", message: randomMessage(random) }),
  model_change: (random) => ({ type: "model_change", provider: random.text(8), modelId: random.text(12) }),
  thinking_level_change: (random) => ({
    type: "thinking_level_change",
    thinkingLevel: random.pick(["off", "low", "medium", "high"] as const),
  }),
  compaction: (random, ids) => ({
    type: "compaction",
    summary: random.text(200),
    firstKeptEntryId: random.pick(ids),
    tokensBefore: random.int(200_000),
    ...(random.bool()
      ? { details: { userMessages: [random.text()], readFiles: [random.text(10)], modifiedFiles: [] } }
      : {}),
  }),
  branch_summary: (random, ids) => ({ type: "branch_summary", fromId: random.pick(ids), summary: random.text(100) }),
  label: (random, ids) => ({
    type: "label",
    targetId: random.pick(ids),
    ...(random.bool() ? { label: random.text(12) } : {}),
  }),
  session_info: (random) => ({ type: "session_info", name: random.text(20) }),
  custom: (random) => ({
    type: "custom",
    customType: random.text(10),
    ...(random.bool() ? { data: random.json() } : {}),
  }),
  checkpoint: (random) => ({
    type: "checkpoint",
    ref: Array.from({ length: 5 }, () => random.hexId()).join(""),
    files: Array.from({ length: random.int(4) }, () => random.text(12)),
    reason: random.pick(["turn", "turn_end", "rewind"] as const),
    workspace: random.text(20),
    ...(random.bool()
      ? { skipped: [{ path: random.text(12), bytes: random.int(1 << 30), reason: "file_too_large" as const }] }
      : {}),
  }),
  file_images: (random) => ({
    type: "file_images",
    phase: random.pick(["before", "after"] as const),
    reason: random.pick(["tool", "rewind"] as const),
    workspace: random.text(20),
    ...(random.bool() ? { toolCallId: random.text(12) } : {}),
    files: Array.from({ length: random.int(3) }, () => ({
      path: random.text(12),
      blob: random.bool() ? null : Array.from({ length: 8 }, () => random.hexId()).join(""),
    })),
  }),
};

function randomMessage(random: Random): AgentMessage {
  const text = (): TextContent => ({ type: "text", text: random.text(80) });
  const role = random.pick(["user", "assistant", "toolResult", "custom"] as const);
  const timestamp = random.int(2_000_000_000_000);
  if (role === "user") return { role, content: random.bool() ? random.text(80) : [text()], timestamp };
  if (role === "toolResult")
    return {
      role,
      toolCallId: random.text(12),
      toolName: "read",
      content: [text()],
      isError: random.bool(),
      timestamp,
    };
  if (role === "custom")
    return { role, customType: random.text(8), content: random.text(), display: random.bool(), timestamp };
  const message: AssistantMessage = {
    role,
    content: [
      text(),
      { type: "thinking", thinking: random.text(), signature: random.text(16) },
      { type: "toolCall", id: random.text(10), name: "edit", arguments: { path: random.text(12), n: random.int(9) } },
    ],
    api: "faux",
    provider: "faux",
    model: random.text(8),
    usage: {
      input: random.int(9999),
      output: random.int(999),
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: random.int(99999),
      cost: { input: 0.25, output: 0.5, cacheRead: 0, cacheWrite: 0, total: 0.75 },
    },
    stopReason: random.pick(["stop", "length", "toolUse", "error", "aborted"] as const),
    timestamp,
  };
  return message;
}

/** `count` entries forming a tree (each parent an earlier entry), every type present. */
function randomEntries(random: Random, count: number): SessionEntry[] {
  const entries: SessionEntry[] = [];
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const type =
      index < ENTRY_TYPE_NAMES.length ? (ENTRY_TYPE_NAMES[index] as SessionEntryType) : random.pick(ENTRY_TYPE_NAMES);
    let id = random.hexId();
    while (ids.includes(id)) id = random.hexId();
    const parentId = ids.length === 0 ? null : random.pick(ids);
    const fields = generators[type](random, ids.length > 0 ? ids : [id]);
    entries.push({
      ...fields,
      id,
      parentId,
      timestamp: new Date(random.int(2_000_000_000_000)).toISOString(),
    } as SessionEntry);
    ids.push(id);
  }
  return entries;
}

describe("the session line format", () => {
  it("round-trips random entries of every type through one line", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const entries = randomEntries(new Random(seed), 30);
      expect(new Set(entries.map((entry) => entry.type))).toEqual(new Set(ENTRY_TYPE_NAMES));
      for (const entry of entries) {
        const line = serializeEntryLine(entry);
        expect(line).not.toContain("\n");
        expect(line.startsWith(entryLinePrefix(entry.type))).toBe(true);
        const bytes = Buffer.from(line);
        expect(readEntryPrefix(bytes, 0, bytes.length), `seed ${seed}`).toEqual({
          type: entry.type,
          id: entry.id,
          parentId: entry.parentId,
        });
        expect(parseSessionEntryLine(line), `seed ${seed}`).toEqual({ ok: true, value: entry });
      }
    }
  });

  it("reads back a file of random entries whole, the lazy types and the eager ones alike", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-line-format-"));
    try {
      for (let seed = 100; seed < 105; seed++) {
        const entries = randomEntries(new Random(seed), 200);
        const header = {
          type: "session",
          version: 1,
          id: `seed-${seed}`,
          timestamp: new Date(0).toISOString(),
          cwd: dir,
        };
        const path = join(dir, `${seed}.jsonl`);
        await writeFile(path, `${[JSON.stringify(header), ...entries.map(serializeEntryLine)].join("\n")}\n`);
        const store = await SessionManager.open(path, { readOnly: true });
        expect(store.problems).toEqual([]);
        expect(store.getEntries()).toEqual(entries);
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps messages lazy and the entries the reader needs up front eager", () => {
    expect([...LAZY_ENTRY_TYPES].sort()).toEqual(["branch_summary", "custom", "message"]);
  });

  it("refuses a line of an unknown type by name", () => {
    const line = '{"type":"hologram","id":"0123abcd","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}';
    expect(readEntryPrefix(Buffer.from(line), 0, line.length)).toBeUndefined();
    expect(parseSessionEntryLine(line)).toEqual({ ok: false, error: 'entry 0123abcd: unknown entry type "hologram"' });
  });
});
