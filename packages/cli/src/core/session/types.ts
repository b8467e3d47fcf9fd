/**
 * The session file format, version 1 (docs/design/sessions-on-disk.md): one header line, then one entry per line.
 * Entries form a tree by `id`/`parentId`; every type here is plain JSON.
 */

import type { AgentMessage } from "@gyre/agent";
import type { ThinkingLevel, Usage } from "@gyre/ai";
import type { SkippedFile } from "../checkpoints/types.js";
import type { TodoItem } from "../tools/todo-tool.js";
import type { EntryOfTable } from "./entry-types.js";

/** The only format version this build writes and reads. */
export const SESSION_FORMAT_VERSION = 1;

/** First line of every session file. */
export type SessionHeader = {
  type: "session";
  version: number;
  /** A UUID; also the suffix of the file name. */
  id: string;
  /** ISO time the session was created. */
  timestamp: string;
  /** Absolute working directory the session belongs to. */
  cwd: string;
  /** Path of the session this one was forked from. */
  parentSession?: string;
  /** How the run that created it was started ("interactive", "print", "json", "rpc"); older files lack it. */
  mode?: string;
};

/** Fields every entry has. `id` is 8 hex digits, unique in its file; `parentId` null for a root. */
export type EntryBase = { id: string; parentId: string | null; timestamp: string };

export type MessageEntry = EntryBase & { type: "message"; message: AgentMessage };
/** `baseUrl` is kept when it is not the provider's own (a local server), so `-c` reaches it again. */
export type ModelChangeEntry = EntryBase & {
  type: "model_change";
  provider: string;
  modelId: string;
  baseUrl?: string;
};
export type ThinkingLevelChangeEntry = EntryBase & { type: "thinking_level_change"; thinkingLevel: ThinkingLevel };

/** What a compaction summarised; the entries themselves stay in the file. */
export type CompactionData = {
  summary: string;
  /** The first entry of the branch that is sent to the model as it is. */
  firstKeptEntryId: string;
  /** Estimated context tokens before compacting. */
  tokensBefore: number;
  details?: CompactionDetails;
  /** What the summary call used (older files lack it); session totals count it. */
  usage?: Usage;
};

/** Facts carried from compaction to compaction, computed without trusting the model. */
export type CompactionDetails = {
  /** The user's messages from every summarised part, verbatim (very long ones elided in the middle). */
  userMessages: string[];
  readFiles: string[];
  modifiedFiles: string[];
  /** The todo list as the summarised part left it (the todo tool's last list), so it outlives those messages. */
  todos?: TodoItem[];
};

export type CompactionEntry = EntryBase & { type: "compaction" } & CompactionData;
/** A summary of an abandoned branch, placed where the conversation continues. */
export type BranchSummaryEntry = EntryBase & { type: "branch_summary"; fromId: string; summary: string };
/** Sets (or with `label` absent, clears) the label of `targetId`. */
export type LabelEntry = EntryBase & { type: "label"; targetId: string; label?: string };
export type SessionInfoEntry = EntryBase & { type: "session_info"; name: string };
/** Extension data; never sent to the model. */
export type CustomEntry = EntryBase & { type: "custom"; customType: string; data?: unknown };

/** Why a checkpoint was taken. */
export type CheckpointReason = "turn" | "turn_end" | "rewind";

/**
 * A snapshot of the workspace in its shadow repository (docs/design/rewind.md). "turn": before the first
 * file-changing tool of a run; "turn_end": when that run ended; "rewind": the state a rewind
 * replaced, so the rewind can be undone.
 */
export type CheckpointEntry = EntryBase & {
  type: "checkpoint";
  /** The snapshot's tree id in the workspace's shadow repository. */
  ref: string;
  /** Paths recorded anew (changed since the workspace's previous snapshot), at most 200. */
  files: string[];
  reason: CheckpointReason;
  /** The snapshotted directory. */
  workspace: string;
  /** Paths the snapshot left out (too large, nested repositories); a restore never touches them. */
  skipped?: SkippedFile[];
};

/**
 * One file's content at a moment, kept outside any git repository: `blob` names the saved bytes
 * (sha256) under the workspace's `preimages/` folder, `null` means the file did not exist, and
 * `skipped` marks a file too large or not a regular file (never restored).
 */
export type FileImage = { path: string; blob: string | null; mode?: number; skipped?: true };

/**
 * Pre- and post-images of the files a write or edit touches, for rewinding without git: "before"
 * is recorded (durably) before the tool runs, "after" when it ended. A rewind records the files it
 * replaces as "before" and what it wrote as "after" (reason "rewind"), so it can be undone.
 */
export type FileImagesEntry = EntryBase & {
  type: "file_images";
  phase: "before" | "after";
  reason: "tool" | "rewind";
  /** The workspace the paths are relative to. */
  workspace: string;
  toolCallId?: string;
  files: FileImage[];
};

/** Every entry type: derived from the table in entry-types.ts, where a new type gets its row. */
export type SessionEntry = EntryOfTable;

export type SessionEntryType = SessionEntry["type"];

/** Entry data without the tree fields, as callers append it. */
export type NewEntry = WithoutBase<SessionEntry>;
type WithoutBase<E> = E extends unknown ? Omit<E, keyof EntryBase> : never;

/** A line that could not be used, with its 1-based line number. */
export type ReadProblem = { line: number; message: string };

/** The result of parsing one record. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** One session as `--resume` lists it. */
export type SessionSummary = {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSession?: string;
  created: Date;
  modified: Date;
  /** Text of the first user message, shortened; "" when there is none. */
  firstMessage: string;
  /** Message entries in the file, on every branch. */
  messageCount: number;
  /** "provider/model" of the last answer (or model change); undefined before any. */
  model?: string;
  /** Bytes on disk. */
  size: number;
  /** The header's `mode`: how the session was started. */
  mode?: string;
};
