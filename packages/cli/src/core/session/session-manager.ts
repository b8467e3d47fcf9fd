/**
 * A session: the tree of entries, the current leaf, and (unless in memory) the file they are
 * appended to. Appends return at once with the new entry's id; the write is queued and `flush()`
 * makes it durable. The caller calls `flush()` at every turn end and `close()` on exit.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { dirname } from "node:path";
import type { AgentMessage } from "@gyre/agent";
import { ensureToolResults, type ThinkingLevel } from "@gyre/ai";
import { buildContextMessages } from "../compaction/build-context-messages.js";
import { CliError } from "../errors.js";
import { serializeEntryLine } from "./line-format.js";
import { readSessionFile } from "./read-session.js";
import { createRedactor, type Redactor } from "./redact-secrets.js";
import { INTERRUPTED_TOOL_RESULT } from "./repair-history.js";
import { SessionFile } from "./session-file.js";
import type { SessionJournals } from "./session-journal.js";
import { newSessionPath } from "./session-paths.js";
import { SessionTree, type SessionTreeNode } from "./session-tree.js";
import {
  type CheckpointEntry,
  type CompactionData,
  type EntryBase,
  type FileImagesEntry,
  type NewEntry,
  type ReadProblem,
  SESSION_FORMAT_VERSION,
  type SessionEntry,
  type SessionHeader,
} from "./types.js";

/** What the model needs from a branch: its messages and the model and thinking level last set. */
export type SessionContext = {
  messages: AgentMessage[];
  model?: { provider: string; modelId: string; baseUrl?: string };
  thinkingLevel?: ThinkingLevel;
};

export type CreateSessionOptions = {
  /** Root of all sessions (the CLI passes `$GYRE_HOME/sessions`). */
  sessionsDir: string;
  cwd: string;
  /** Applied to every line before it is written. Default: key shapes plus secret-named vars of `process.env`. */
  redact?: Redactor;
  /** Where lines go before the file (the fleet's journal); default none. */
  journals?: SessionJournals;
  parentSession?: string;
  /** How the run was started (`RuntimeConfig.mode`), recorded in the header for `--resume`'s filter. */
  mode?: string;
};

export type OpenSessionOptions = {
  redact?: Redactor;
  journals?: SessionJournals;
  /** Read without locking or ever writing (listing, inspection). Appends then throw. */
  readOnly?: boolean;
};

/** What a store passes on to the stores made from it: line redaction and the fleet's journal. */
export type StoreSeams = { redact?: Redactor; journals?: SessionJournals };

type Storage =
  | { mode: "memory" }
  | { mode: "read-only"; path: string }
  | { mode: "file"; file: SessionFile; redact: Redactor; exists: boolean };

/** One session; create with `create`, `inMemory` or `open`. Not safe to share between processes (the lock sees to that). */
export class SessionManager {
  private leaf: string | null;
  /** Lines of a new session held back until its first message creates the file. */
  private unwritten: string[] = [];
  private fileExists: boolean;

  private constructor(
    readonly header: SessionHeader,
    private readonly tree: SessionTree,
    private readonly storage: Storage,
  ) {
    this.leaf = tree.lastId();
    this.fileExists = storage.mode === "file" && storage.exists;
  }

  /** A new session whose file is created when its first message is appended. */
  static create(options: CreateSessionOptions): SessionManager {
    const header = createHeader(options.cwd, options.parentSession, options.mode);
    const path = newSessionPath({ ...options, id: header.id, date: new Date(header.timestamp) });
    const redact = options.redact ?? createRedactor({ env: process.env });
    const file = SessionFile.forNewSession(path, header, options.journals);
    const manager = new SessionManager(header, new SessionTree(), { mode: "file", file, redact, exists: false });
    manager.seams = { redact, ...(options.journals ? { journals: options.journals } : {}) };
    return manager;
  }

  /** A session that keeps everything in memory (`--no-session`): same API, nothing on disk. */
  static inMemory(options: { cwd: string }): SessionManager {
    return new SessionManager(createHeader(options.cwd), new SessionTree(), { mode: "memory" });
  }

  /**
   * Opens an existing session file and locks it for appending. Throws a `CliError` when the
   * file is missing, holds no entry, or is locked by a live process. Damaged lines are skipped
   * and listed in `problems`; the file is never rewritten. A file with a damaged header or a
   * newer format version opens read-only with its readable entries (`headerProblem` says why):
   * `fork` continues them in a new file.
   */
  static async open(path: string, options: OpenSessionOptions = {}): Promise<SessionManager> {
    const loaded = await readSessionFile(path);
    if (options.readOnly || loaded.headerProblem !== undefined) {
      const session = new SessionManager(loaded.header, loaded.tree, { mode: "read-only", path });
      session.headerProblem = loaded.headerProblem;
      session.seams = options;
      return session;
    }
    const file = await SessionFile.openExisting(path, loaded.endsWithNewline, options.journals);
    const redact = options.redact ?? createRedactor({ env: process.env });
    const manager = new SessionManager(loaded.header, loaded.tree, { mode: "file", file, redact, exists: true });
    manager.seams = { redact, ...(options.journals ? { journals: options.journals } : {}) };
    return manager;
  }

  /** The redactor and journals this store was made with: stores made from it (new, fork, open) get them too. */
  seams: StoreSeams = {};

  /** Why this file cannot be continued in place (damaged header, newer format); see `open`. */
  headerProblem: string | undefined;

  get id(): string {
    return this.header.id;
  }

  get cwd(): string {
    return this.header.cwd;
  }

  /** The session file's path; undefined in memory. The file may not exist yet (no message so far). */
  get path(): string | undefined {
    if (this.storage.mode === "memory") return undefined;
    return this.storage.mode === "file" ? this.storage.file.path : this.storage.path;
  }

  /** Lines that were skipped while reading, with their line numbers. */
  get problems(): readonly ReadProblem[] {
    return this.tree.problems;
  }

  /** The entry new entries are appended under; null before the first entry. */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Appends a message under the leaf and makes it the leaf. Returns the entry id. */
  appendMessage(message: AgentMessage): string {
    return this.append({ type: "message", message });
  }

  appendModelChange(provider: string, modelId: string, baseUrl?: string): string {
    return this.append({ type: "model_change", provider, modelId, ...(baseUrl ? { baseUrl } : {}) });
  }

  appendThinkingLevelChange(thinkingLevel: ThinkingLevel): string {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }

  /** Records a compaction (see `compact()`); the summarised entries stay in the file. */
  appendCompaction(data: CompactionData): string {
    if (!this.tree.has(data.firstKeptEntryId))
      throw new CliError(
        "session_misuse",
        `Compaction keeps entry ${data.firstKeptEntryId}, which is not in this session.`,
      );
    return this.append({ type: "compaction", ...data });
  }

  /** Extension data under the leaf; never sent to the model. */
  appendCustom(customType: string, data?: unknown): string {
    return this.append(data === undefined ? { type: "custom", customType } : { type: "custom", customType, data });
  }

  /** Records a workspace snapshot (see core/checkpoints) under the leaf. */
  appendCheckpoint(checkpoint: Omit<CheckpointEntry, keyof EntryBase | "type">): string {
    return this.append({ type: "checkpoint", ...checkpoint });
  }

  /** Records pre- or post-images of files (rewind without git, see core/checkpoints) under the leaf. */
  appendFileImages(images: Omit<FileImagesEntry, keyof EntryBase | "type">): string {
    return this.append({ type: "file_images", ...images });
  }

  /** Labels an entry (bookmark); `undefined` or "" clears the label. */
  setLabel(targetId: string, label: string | undefined): string {
    this.requireEntry(targetId);
    return this.append(label ? { type: "label", targetId, label } : { type: "label", targetId });
  }

  /** Names the session (shown by `--resume`). */
  setName(name: string): string {
    return this.append({ type: "session_info", name });
  }

  getName(): string | undefined {
    return this.tree.sessionName();
  }

  getLabel(id: string): string | undefined {
    return this.tree.label(id);
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.tree.get(id);
  }

  /** Entries from the root to `leafId` (default: the current leaf). */
  getBranch(leafId: string | null = this.leaf): SessionEntry[] {
    return this.tree.branch(leafId);
  }

  /** Every entry in file order. Parses the whole session: not for the resume path. */
  getEntries(): SessionEntry[] {
    return this.tree.all();
  }

  getChildren(parentId: string | null): SessionEntry[] {
    return this.tree.children(parentId);
  }

  getTree(): SessionTreeNode[] {
    return this.tree.toNodes();
  }

  /** Continues from `entryId`: the next entries become its children. Every entry is kept. */
  branch(entryId: string): void {
    this.requireEntry(entryId);
    this.leaf = entryId;
  }

  /** Continues from before the first entry (the next entry is a new root). */
  resetLeaf(): void {
    this.leaf = null;
  }

  /** Branches to `entryId` and records a summary of the branch left behind. */
  branchWithSummary(entryId: string, summary: string): string {
    const fromId = this.leaf;
    this.branch(entryId);
    return this.append({ type: "branch_summary", fromId: fromId ?? entryId, summary });
  }

  /**
   * The context for the next model call. Reads only what it needs: the current branch's entries
   * from the last compaction's first kept entry on, plus the last model and thinking changes.
   */
  buildContext(): SessionContext {
    const path = this.tree.pathRows(this.leaf);
    const entries = this.tree.entries(path.slice(this.tree.contextStart(path)));
    const context: SessionContext = { messages: buildContextMessages(entries) };
    const model = this.findLast(path, "model_change");
    if (model?.type === "model_change")
      context.model = {
        provider: model.provider,
        modelId: model.modelId,
        ...(typeof model.baseUrl === "string" ? { baseUrl: model.baseUrl } : {}),
      };
    // The model that answered last beats an earlier model change: a resume continues on it.
    const answered = this.lastAnsweringModel(path, model);
    if (answered && (answered.provider !== context.model?.provider || answered.modelId !== context.model?.modelId))
      context.model = answered;
    const thinking = this.findLast(path, "thinking_level_change");
    if (thinking?.type === "thinking_level_change") context.thinkingLevel = thinking.thinkingLevel;
    return context;
  }

  /**
   * The provider and model of the last assistant message on `path` after `since` (a model
   * change), or undefined when none answered after it. Only assistant rows are parsed.
   */
  private lastAnsweringModel(
    path: number[],
    since: SessionEntry | undefined,
  ): { provider: string; modelId: string } | undefined {
    for (let index = path.length - 1; index >= 0; index--) {
      const row = path[index] as number;
      const type = this.tree.typeAt(row);
      // Going back, the first model change met is the last one: nothing answered after it.
      if (type === "model_change" && since !== undefined) return undefined;
      if (type !== "message") continue;
      const entry = this.tree.entryAtRow(row);
      if (entry?.type !== "message" || entry.message.role !== "assistant") continue;
      const { provider, model } = entry.message as { provider?: unknown; model?: unknown };
      if (typeof provider === "string" && provider && typeof model === "string" && model)
        return { provider, modelId: model };
    }
    return undefined;
  }

  /** The last usable entry of `type` on `path`; a line that fails to parse is passed over. */
  private findLast(path: number[], type: SessionEntry["type"]): SessionEntry | undefined {
    for (let index = path.length - 1; index >= 0; index--) {
      if (this.tree.typeAt(path[index] as number) !== type) continue;
      const entry = this.tree.entryAtRow(path[index] as number);
      if (entry !== undefined) return entry;
    }
    return undefined;
  }

  /**
   * Gives each tool call of the leaf's assistant message that has no result a synthetic error
   * result (the call is not re-run) and appends it. Call before the next model call on resume.
   * Returns how many results were added.
   */
  repairInterruptedToolCalls(): number {
    const branch = this.getBranch();
    const last = findLastAssistant(branch);
    if (last === undefined) return 0;
    const results = branch
      .slice(last.index + 1)
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
    const answered = [last.message, ...results];
    const missing = ensureToolResults(answered, { text: INTERRUPTED_TOOL_RESULT, timestamp: Date.now() });
    for (const message of missing.slice(answered.length)) this.appendMessage(message);
    return missing.length - answered.length;
  }

  /**
   * Copies the current branch into a new session (same entry ids) whose header points back here
   * with `parentSession`. Returns the new session; this one stays open until closed.
   */
  async fork(options: { sessionsDir?: string; cwd?: string } = {}): Promise<SessionManager> {
    const branch = this.getBranch();
    const parentPath = this.path;
    const cwd = options.cwd ?? this.cwd;
    let forked: SessionManager;
    if (parentPath === undefined) forked = SessionManager.inMemory({ cwd });
    else {
      const sessionsDir = options.sessionsDir ?? dirname(dirname(parentPath));
      forked = SessionManager.create({
        sessionsDir,
        cwd,
        parentSession: parentPath,
        ...this.seams,
        ...(this.header.mode !== undefined && { mode: this.header.mode }),
      });
    }
    // Each entry's parent is the one before it: a gap the reader bridged is whole in the copy.
    let parentId: string | null = null;
    for (const entry of branch) {
      forked.insert({ ...entry, parentId });
      parentId = entry.id;
    }
    // Labels set after an entry live in later entries a fork from earlier leaves behind.
    for (const entry of branch) {
      const label = this.tree.label(entry.id);
      if (label !== undefined && forked.getLabel(entry.id) !== label) forked.setLabel(entry.id, label);
    }
    await forked.flush();
    return forked;
  }

  /** Waits for queued writes and fsyncs them. Rejects with a `CliError` if a write failed. */
  async flush(): Promise<void> {
    if (this.storage.mode === "file") await this.storage.file.flush();
  }

  /** Flushes, closes the file and releases the lock. Further appends throw. */
  async close(): Promise<void> {
    if (this.storage.mode === "file") await this.storage.file.close();
  }

  private append(data: NewEntry): string {
    if (this.storage.mode === "read-only")
      throw new CliError("session_misuse", "This session was opened read-only; open it without readOnly to append.");
    let id = randomBytes(4).toString("hex");
    while (this.tree.has(id)) id = randomBytes(4).toString("hex");
    const entry = { ...data, id, parentId: this.leaf, timestamp: new Date().toISOString() } as SessionEntry;
    this.insert(entry);
    return id;
  }

  /** Adds an entry to the tree, makes it the leaf and queues its line. */
  private insert(entry: SessionEntry): void {
    this.tree.addEntry(entry);
    this.leaf = entry.id;
    if (this.storage.mode !== "file") return;
    this.unwritten.push(this.storage.redact(serializeEntryLine(entry)));
    // A new session's file appears with its first message, never before.
    if (entry.type === "message" || this.fileExists) {
      this.fileExists = true;
      this.storage.file.append(this.unwritten);
      this.unwritten = [];
    }
  }

  private requireEntry(id: string): void {
    if (!this.tree.has(id))
      throw new CliError("bad_usage", `No entry ${id} in this session; pick an id from its tree.`);
  }
}

function createHeader(cwd: string, parentSession?: string, mode?: string): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: SESSION_FORMAT_VERSION,
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    cwd,
  };
  if (parentSession !== undefined) header.parentSession = parentSession;
  if (mode !== undefined) header.mode = mode;
  return header;
}

function findLastAssistant(branch: SessionEntry[]) {
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index];
    if (entry?.type === "message" && entry.message.role === "assistant") return { index, message: entry.message };
    if (entry?.type === "message" && entry.message.role === "user") return undefined;
  }
  return undefined;
}
