/**
 * The in-memory tree of a session's entries. Entries loaded from a file are kept as byte ranges
 * of the file's buffer and parsed on first use, so resuming a long session parses only the
 * entries the current branch needs. Lookups by id are O(1); walks are leaf→root via parentId.
 */
import { parseSessionEntryLine } from "./parse-entry.js";
import type { ReadProblem, SessionEntry, SessionEntryType } from "./types.js";

/** A node of `SessionTree.toNodes()`: an entry and its children in file order. */
export type SessionTreeNode = { entry: SessionEntry; children: SessionTreeNode[]; label?: string };

export class SessionTree {
  private readonly ids: string[] = [];
  private readonly parentIds: (string | null)[] = [];
  private readonly types: string[] = [];
  /** Line number, start and end offset of each row, three numbers per row (typed: no GC work). */
  private positions = new Float64Array(3 * 1024);
  private readonly cache: (SessionEntry | undefined)[] = [];
  private readonly byId = new Map<string, number>();
  private readonly labels = new Map<string, string>();
  private name: string | undefined;
  /** Problems found while reading; lazily parsed lines add theirs when first used. */
  readonly problems: ReadProblem[] = [];

  /** `source` is the file's bytes that `addRange` offsets point into. */
  constructor(private readonly source: Buffer = Buffer.alloc(0)) {}

  get size(): number {
    return this.byId.size;
  }

  /** Adds a line known only by its tree fields; it is parsed when first needed. */
  addRange(prefix: { type: string; id: string; parentId: string | null }, line: number, start: number, end: number) {
    this.push(prefix.id, prefix.parentId, prefix.type, undefined, line, start, end);
  }

  /** Adds a parsed entry (appended in this process, or a line that needed a full parse). */
  addEntry(entry: SessionEntry, line = 0): void {
    this.push(entry.id, entry.parentId, entry.type, entry, line, 0, 0);
  }

  // Positional parameters: this runs once per line on resume, and objects per call cost GC time.
  private push(
    id: string,
    parentId: string | null,
    type: string,
    entry: SessionEntry | undefined,
    line: number,
    start: number,
    end: number,
  ): void {
    const index = this.ids.length;
    if (this.byId.has(id)) this.problems.push({ line, message: `entry id ${id} appears twice; the later line wins` });
    this.byId.set(id, index);
    this.ids.push(id);
    this.parentIds.push(parentId);
    this.types.push(type);
    this.cache.push(entry);
    if (3 * index + 3 > this.positions.length) {
      const grown = new Float64Array(this.positions.length * 2);
      grown.set(this.positions);
      this.positions = grown;
    }
    this.positions[3 * index] = line;
    this.positions[3 * index + 1] = start;
    this.positions[3 * index + 2] = end;
    if (type === "label" || type === "session_info") this.applyMetadata(index);
  }

  private applyMetadata(index: number): void {
    const entry = this.entryAt(index);
    if (entry?.type === "label") {
      if (entry.label === undefined || entry.label === "") this.labels.delete(entry.targetId);
      else this.labels.set(entry.targetId, entry.label);
    } else if (entry?.type === "session_info") this.name = entry.name;
  }

  /** Parses (once) and returns the entry at `index`; a line that fails is reported and dropped. */
  private entryAt(index: number): SessionEntry | undefined {
    const cached = this.cache[index];
    if (cached !== undefined) return cached;
    const id = this.ids[index];
    if (id === undefined || this.byId.get(id) !== index) return undefined;
    const text = this.source.toString("utf8", this.positions[3 * index + 1], this.positions[3 * index + 2]);
    let parsed = parseSessionEntryLine(text);
    if (parsed.ok && parsed.value.id !== id) parsed = { ok: false, error: "the line's id changed after its start" };
    if (!parsed.ok) {
      this.problems.push({ line: this.positions[3 * index] ?? 0, message: `${parsed.error}; skipped` });
      this.byId.delete(id);
      return undefined;
    }
    this.cache[index] = parsed.value;
    return parsed.value;
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
   * Ids from the root to `leafId`, walking parent links. Stops at a missing parent (a skipped
   * line starts the branch there) and at a cycle (a damaged file), never looping.
   */
  pathIds(leafId: string | null): string[] {
    const path: string[] = [];
    let id = leafId;
    while (id !== null && this.byId.has(id) && path.length <= this.ids.length) {
      path.push(id);
      id = this.parentOf(id) ?? null;
    }
    return path.reverse();
  }

  /** The parsed entries from the root to `leafId`; unusable lines are left out. */
  branch(leafId: string | null): SessionEntry[] {
    return this.pathIds(leafId)
      .map((id) => this.get(id))
      .filter((entry) => entry !== undefined);
  }

  /** Every usable entry in file order (parses all of them). */
  all(): SessionEntry[] {
    const entries: SessionEntry[] = [];
    for (let index = 0; index < this.ids.length; index++) {
      const id = this.ids[index];
      if (id === undefined || this.byId.get(id) !== index) continue;
      const entry = this.entryAt(index);
      if (entry) entries.push(entry);
    }
    return entries;
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
    for (const node of nodes.values()) {
      const parent = node.entry.parentId === null ? undefined : nodes.get(node.entry.parentId);
      if (parent && parent !== node) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }
}
