/**
 * The in-memory tree of a session's entries. A line read from a file starts as its tree fields
 * and its byte range; the reader then `load`s the bytes, parsing the lines the context needs at
 * once and keeping the bytes of the others for a parse on first use. So a resume parses only the
 * current branch's tail, and never holds a line both as bytes and as an object. Lookups by id
 * are O(1); walks are leaf→root via parentId.
 */
import { isAscii } from "node:buffer";
import { parseSessionEntryLine } from "./parse-entry.js";
import type { ReadProblem, SessionEntry, SessionEntryType } from "./types.js";

/** A node of `SessionTree.toNodes()`: an entry and its children in file order. */
export type SessionTreeNode = { entry: SessionEntry; children: SessionTreeNode[]; label?: string };

/** Numbers kept per row: line number, chunk, start and end offset in the file. */
const FIELDS = 4;
/** Chunk of a row parsed when it was added. */
const PARSED = -1;
/** Chunk of a row whose bytes are still on disk (until `load`). */
const ON_DISK = -2;
/**
 * Lines are decoded a run at a time (one native call instead of one per line); runs stay short
 * because V8 keeps long strings outside its heap, which made parsing slices of them slower.
 */
const RUN_BYTES = 64 * 1024;

export class SessionTree {
  private readonly ids: string[] = [];
  private readonly parentIds: (string | null)[] = [];
  private readonly types: string[] = [];
  /** `FIELDS` numbers per row, typed: no GC work for 50,000 rows. */
  private positions = new Float64Array(FIELDS * 1024);
  private readonly cache: (SessionEntry | undefined)[] = [];
  private readonly byId = new Map<string, number>();
  private readonly labels = new Map<string, string>();
  private name: string | undefined;
  /** Bytes kept for unparsed rows, with the file offset each starts at; undefined once unused. */
  private readonly chunks: (Buffer | undefined)[] = [];
  private readonly chunkStarts: number[] = [];
  /** Per chunk, how many of its rows are not parsed yet. */
  private readonly unparsed: number[] = [];
  /** Changes whenever a path can change (a row added, a line dropped): keys `lastPath`. */
  private version = 0;
  private lastPath: { leafId: string | null; version: number; path: number[] } | undefined;
  /** Problems found while reading; lazily parsed lines add theirs when first used. */
  readonly problems: ReadProblem[] = [];

  get size(): number {
    return this.byId.size;
  }

  /** Adds a line known only by its tree fields and file offsets; `load` must give its bytes. */
  addRange(prefix: { type: string; id: string; parentId: string | null }, line: number, start: number, end: number) {
    this.push(prefix.id, prefix.parentId, prefix.type, undefined, line, ON_DISK, start, end);
  }

  /** Adds a parsed entry (appended in this process, or a line that was parsed when read). */
  addEntry(entry: SessionEntry, line = 0): void {
    this.push(entry.id, entry.parentId, entry.type, entry, line, PARSED, 0, 0);
  }

  // Positional parameters: this runs once per line on resume, and objects per call cost GC time.
  private push(
    id: string,
    parentId: string | null,
    type: string,
    entry: SessionEntry | undefined,
    line: number,
    chunk: number,
    start: number,
    end: number,
  ): void {
    const index = this.ids.length;
    this.version++;
    const known = this.byId.size;
    this.byId.set(id, index);
    if (this.byId.size === known)
      this.problems.push({ line, message: `entry id ${id} appears twice; the later line wins` });
    this.ids.push(id);
    this.parentIds.push(parentId);
    this.types.push(type);
    this.cache.push(entry);
    if (FIELDS * index + FIELDS > this.positions.length) {
      const grown = new Float64Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    const at = FIELDS * index;
    this.positions[at] = line;
    this.positions[at + 1] = chunk;
    this.positions[at + 2] = start;
    this.positions[at + 3] = end;
    if (entry !== undefined && (type === "label" || type === "session_info")) this.applyMetadata(entry);
  }

  private applyMetadata(entry: SessionEntry): void {
    if (entry.type === "label") {
      if (entry.label === undefined || entry.label === "") this.labels.delete(entry.targetId);
      else this.labels.set(entry.targetId, entry.label);
    } else if (entry.type === "session_info") this.name = entry.name;
  }

  /** Lines added so far (rows are numbered from 0 in the order they were added). */
  get rowCount(): number {
    return this.ids.length;
  }

  /** Rows in [from, to) whose bytes are still on disk, in file order. */
  rowsOnDisk([from, to]: [number, number]): number[] {
    const rows: number[] = [];
    for (let row = from; row < to; row++) if (this.positions[FIELDS * row + 1] === ON_DISK) rows.push(row);
    return rows;
  }

  /** File offsets of a row's line: [start, end). */
  byteRange(row: number): [number, number] {
    return [this.positions[FIELDS * row + 2] ?? 0, this.positions[FIELDS * row + 3] ?? 0];
  }

  /**
   * Gives `rows` their bytes: `bytes` holds the file from offset `start` and covers every row.
   * Rows for which `parseNow` is true are parsed now; `bytes` is kept only for the others, so
   * the caller may reuse it when every row was parsed now (`load` returns false then).
   */
  load(rows: readonly number[], bytes: Buffer, start: number, parseNow: (row: number) => boolean): boolean {
    const chunk = this.chunks.length;
    let kept = 0;
    for (const row of rows) {
      if (parseNow(row)) continue;
      this.positions[FIELDS * row + 1] = chunk;
      kept++;
    }
    if (kept > 0) {
      this.chunks.push(bytes);
      this.chunkStarts.push(start);
      this.unparsed.push(kept);
    }
    this.parseRuns(
      rows.filter((row) => this.positions[FIELDS * row + 1] === ON_DISK),
      bytes,
      start,
    );
    return kept > 0;
  }

  /** Parses rows (in file order) whose lines are in `bytes` (the file from offset `base`). */
  private parseRuns(rows: readonly number[], bytes: Buffer, base: number): void {
    let index = 0;
    while (index < rows.length) {
      const start = this.positions[FIELDS * (rows[index] as number) + 2] ?? 0;
      let end = this.positions[FIELDS * (rows[index] as number) + 3] ?? 0;
      let last = index;
      while (last + 1 < rows.length) {
        const at = FIELDS * (rows[last + 1] as number);
        if ((this.positions[at + 2] ?? 0) < end || (this.positions[at + 3] ?? 0) - start > RUN_BYTES) break;
        end = this.positions[at + 3] ?? 0;
        last++;
      }
      const run = bytes.subarray(start - base, end - base);
      const text = last > index && isAscii(run) ? run.toString("latin1") : undefined;
      for (; index <= last; index++) {
        const row = rows[index] as number;
        const [from, to] = this.byteRange(row);
        const line =
          text === undefined ? bytes.toString("utf8", from - base, to - base) : text.slice(from - start, to - start);
        this.parseRow(row, line);
      }
    }
  }

  /** Parses a row's line; a line that fails is reported and dropped. Marks the row parsed. */
  private parseRow(row: number, text: string): SessionEntry | undefined {
    const at = FIELDS * row;
    const id = this.ids[row] as string;
    this.positions[at + 1] = PARSED;
    if (this.byId.get(id) !== row) return undefined; // a later line took its id
    let parsed = parseSessionEntryLine(text);
    if (parsed.ok && parsed.value.id !== id) parsed = { ok: false, error: "the line's id changed after its start" };
    if (!parsed.ok) {
      this.problems.push({ line: this.positions[at] ?? 0, message: `${parsed.error}; skipped` });
      this.byId.delete(id);
      this.version++;
      return undefined;
    }
    this.cache[row] = parsed.value;
    return parsed.value;
  }

  /** The entry at `row`, parsed on first use from its kept bytes. */
  private entryAt(row: number): SessionEntry | undefined {
    const cached = this.cache[row];
    if (cached !== undefined) return cached;
    const id = this.ids[row];
    if (id === undefined || this.byId.get(id) !== row) return undefined;
    const chunk = this.positions[FIELDS * row + 1] ?? PARSED;
    const bytes = this.chunks[chunk];
    if (bytes === undefined) return undefined; // parsed already, or never loaded
    const base = this.chunkStarts[chunk] ?? 0;
    const [from, to] = this.byteRange(row);
    const entry = this.parseRow(row, bytes.toString("utf8", from - base, to - base));
    const left = (this.unparsed[chunk] ?? 1) - 1;
    this.unparsed[chunk] = left;
    if (left === 0) this.chunks[chunk] = undefined;
    return entry;
  }

  /**
   * The index in `path` (rows root→leaf) where the context starts: the last compaction's first
   * kept entry (or the compaction itself when that entry is not before it), else 0.
   */
  contextStart(path: readonly number[]): number {
    for (let index = path.length - 1; index >= 0; index--) {
      if (this.types[path[index] as number] !== "compaction") continue;
      const compaction = this.entryAt(path[index] as number);
      let kept = -1;
      if (compaction?.type === "compaction")
        kept = path.findIndex((row) => this.ids[row] === compaction.firstKeptEntryId);
      return kept >= 0 && kept < index ? kept : index;
    }
    return 0;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): SessionEntry | undefined {
    const index = this.byId.get(id);
    return index === undefined ? undefined : this.entryAt(index);
  }

  /** The type of an entry without parsing it. */
  typeOf(id: string): SessionEntryType | undefined {
    const index = this.byId.get(id);
    return index === undefined ? undefined : (this.types[index] as SessionEntryType);
  }

  parentOf(id: string): string | null | undefined {
    const index = this.byId.get(id);
    return index === undefined ? undefined : (this.parentIds[index] ?? null);
  }

  /** The id of the last entry in file order, or null when there is none. */
  lastId(): string | null {
    for (let index = this.ids.length - 1; index >= 0; index--) {
      const id = this.ids[index];
      if (id !== undefined && this.byId.get(id) === index) return id;
    }
    return null;
  }

  /**
   * Ids from the root to `leafId`, walking parent links. A missing parent (a lost or skipped
   * line) or a parent link back into the path (a cycle, a self-parent) is reported in `problems`
   * and the walk goes on from the nearest earlier entry in file order, so no entry before the
   * damage is dropped and none appears twice.
   */
  pathIds(leafId: string | null): string[] {
    return this.pathRows(leafId).map((row) => this.ids[row] as string);
  }

  /** The parsed entries from the root to `leafId`; unusable lines are left out. */
  branch(leafId: string | null): SessionEntry[] {
    return this.entries(this.pathRows(leafId));
  }

  /**
   * Rows from the root to `leafId` (see `pathIds`). A row is a line's place in the file; rows
   * let callers look at a branch's types without parsing it (`typeAt`, `entries`, `contextStart`).
   */
  pathRows(leafId: string | null): number[] {
    // The reader and then buildContext walk the same 50,000-row branch on resume.
    const last = this.lastPath;
    if (last?.leafId === leafId && last.version === this.version) return last.path.slice();
    const path: number[] = [];
    const seen = new Uint8Array(this.ids.length);
    let row = leafId === null ? undefined : this.byId.get(leafId);
    while (row !== undefined) {
      seen[row] = 1;
      path.push(row);
      const parentId = this.parentIds[row] ?? null;
      if (parentId === null) break;
      const parent = this.byId.get(parentId);
      if (parent !== undefined && seen[parent] !== 1) {
        row = parent;
        continue;
      }
      // A lost line (its parent) or a damaged parentId (a cycle) would cut the branch here and
      // drop everything before it: continue from the nearest earlier entry in file order.
      row = this.previousLiveRow(row, seen);
      this.reportOnce(row, this.positions[FIELDS * (path.at(-1) as number)] ?? 0, parentId, parent !== undefined);
    }
    path.reverse();
    this.lastPath = { leafId, version: this.version, path };
    return path.slice();
  }

  /** The last row before `row` whose line is usable and not in `seen`. */
  private previousLiveRow(row: number, seen: Uint8Array): number | undefined {
    for (let index = row - 1; index >= 0; index--)
      if (seen[index] !== 1 && this.byId.get(this.ids[index] as string) === index) return index;
    return undefined;
  }

  private readonly reported = new Set<string>();

  private reportOnce(joined: number | undefined, line: number, parentId: string, isCycle: boolean): void {
    const key = `${line}:${parentId}:${isCycle}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const what = isCycle
      ? `parentId ${parentId} makes a cycle (or points to the entry itself)`
      : `parent entry ${parentId} is missing (its line was lost or skipped)`;
    const then =
      joined === undefined
        ? "the branch starts there"
        : `continued from the entry before it in the file${this.positions[FIELDS * joined] ? ` (line ${this.positions[FIELDS * joined]})` : ""}`;
    this.problems.push({ line, message: `${what}; ${then}` });
  }

  /**
   * Parses the context of `leafId`'s branch (as `buildContext` will) until no line fails anew,
   * so every gap is in `problems` before anyone reports them. Parsed entries stay cached.
   */
  settle(leafId: string | null): void {
    for (let before = -1; before !== this.version; ) {
      before = this.version;
      const path = this.pathRows(leafId);
      this.entries(path.slice(this.contextStart(path)));
    }
  }

  typeAt(row: number): SessionEntryType | undefined {
    return this.types[row] as SessionEntryType | undefined;
  }

  /** The parsed entries of `rows`, in order; unusable lines are left out. */
  entries(rows: readonly number[]): SessionEntry[] {
    const entries: SessionEntry[] = [];
    for (const row of rows) {
      const entry = this.entryAt(row);
      if (entry !== undefined) entries.push(entry);
    }
    return entries;
  }

  /** The parsed entry at `row`, or undefined when its line is unusable. */
  entryAtRow(row: number): SessionEntry | undefined {
    return this.entryAt(row);
  }

  /** Every usable entry in file order (parses all of them). */
  all(): SessionEntry[] {
    const rows: number[] = [];
    for (let index = 0; index < this.ids.length; index++)
      if (this.byId.get(this.ids[index] as string) === index) rows.push(index);
    return this.entries(rows);
  }

  /** Direct children of `parentId` (null: the roots), in file order. */
  children(parentId: string | null): SessionEntry[] {
    return this.all().filter((entry) => entry.parentId === parentId);
  }

  label(id: string): string | undefined {
    return this.labels.get(id);
  }

  sessionName(): string | undefined {
    return this.name;
  }

  /** The whole tree as nested nodes. Entries whose parent is missing become roots. */
  toNodes(): SessionTreeNode[] {
    const nodes = new Map<string, SessionTreeNode>();
    const roots: SessionTreeNode[] = [];
    for (const entry of this.all()) {
      const node: SessionTreeNode = { entry, children: [] };
      const label = this.labels.get(entry.id);
      if (label !== undefined) node.label = label;
      nodes.set(entry.id, node);
    }
    const cut = this.cycleBreaks(nodes);
    for (const node of nodes.values()) {
      const parent = node.entry.parentId === null ? undefined : nodes.get(node.entry.parentId);
      if (parent && !cut.has(node)) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }

  /** Nodes whose parent link closes a cycle (a self-parent included): they become roots. */
  private cycleBreaks(nodes: Map<string, SessionTreeNode>): Set<SessionTreeNode> {
    const done = new Set<SessionTreeNode>();
    const cut = new Set<SessionTreeNode>();
    for (const start of nodes.values()) {
      const walk = new Set<SessionTreeNode>();
      let node: SessionTreeNode | undefined = start;
      while (node !== undefined && !done.has(node)) {
        walk.add(node);
        const parentId: string | null = node.entry.parentId;
        const parent: SessionTreeNode | undefined = parentId === null ? undefined : nodes.get(parentId);
        if (parent !== undefined && walk.has(parent)) {
          cut.add(node);
          break;
        }
        node = parent;
      }
      for (const walked of walk) done.add(walked);
    }
    return cut;
  }
}
