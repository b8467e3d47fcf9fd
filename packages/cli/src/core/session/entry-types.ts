/**
 * Every entry type of the session line format in one table: whether the reader parses its lines
 * as it reads the file or on first use, and how its own fields are checked. The entry union
 * (`SessionEntry`), the type guard, the validator, the reader's prefix table and its lazy set are
 * all derived from here, so a new entry type is its TypeScript shape plus one row.
 */
import type {
  BranchSummaryEntry,
  CheckpointEntry,
  CompactionEntry,
  CustomEntry,
  FileImagesEntry,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionInfoEntry,
  ThinkingLevelChangeEntry,
} from "./types.js";

/** A parsed line, before its type is known. */
export type JsonObject = Record<string, unknown>;

/** How lines of one entry type are read. `E` is the entry shape the row describes. */
export type EntryTypeSpec<E extends { type: string }> = {
  /**
   * Parsed on first use rather than while reading: types that are many or large and needed only
   * for the context (messages). Eager types are the few the reader needs to know the session.
   */
  lazy: boolean;
  /** Why the entry's own fields are wrong, or undefined; the tree fields are checked before. */
  check(value: JsonObject): string | undefined;
  /** Never set: carries `E` for the derived union. */
  readonly shape?: E;
};

/** Checks at compile time that each row's key is its entry's `type`. */
function defineEntryTypes<T extends { [K in keyof T]: EntryTypeSpec<{ type: K & string }> }>(table: T): T {
  return table;
}

/** One row's spec for the entry shape `E`. */
function row<E extends { type: string }>(spec: EntryTypeSpec<E>): EntryTypeSpec<E> {
  return spec;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const roles = new Set(["user", "assistant", "toolResult", "custom"]);
const thinkingLevels = new Set(["off", "low", "medium", "high"]);
const isString = (value: unknown): value is string => typeof value === "string";
const checkpointReasons = new Set(["turn", "turn_end", "rewind"]);

function checkCheckpoint(value: JsonObject): string | undefined {
  if (!isString(value.ref) || !/^[0-9a-f]{40,64}$/.test(value.ref)) return "checkpoint needs a tree id in ref";
  if (!Array.isArray(value.files) || !value.files.every(isString)) return "checkpoint needs files as a list of paths";
  if (!isString(value.reason) || !checkpointReasons.has(value.reason)) return "checkpoint has an unknown reason";
  if (!isString(value.workspace)) return "checkpoint needs a workspace";
  const skipped = value.skipped;
  if (
    skipped !== undefined &&
    !(Array.isArray(skipped) && skipped.every((file) => isJsonObject(file) && isString(file.path)))
  )
    return "checkpoint's skipped must list objects with a path";
  return undefined;
}

function checkFileImages(value: JsonObject): string | undefined {
  if (value.phase !== "before" && value.phase !== "after") return "file_images needs phase before or after";
  if (value.reason !== "tool" && value.reason !== "rewind") return "file_images has an unknown reason";
  if (!isString(value.workspace)) return "file_images needs a workspace";
  const valid = (file: unknown) =>
    isJsonObject(file) &&
    isString(file.path) &&
    (file.blob === null || (isString(file.blob) && /^[0-9a-f]{64}$/.test(file.blob)));
  return Array.isArray(value.files) && value.files.every(valid)
    ? undefined
    : "file_images needs files with a path and a sha256 blob or null";
}

export const ENTRY_TYPES = defineEntryTypes({
  message: row<MessageEntry>({
    lazy: true,
    check: ({ message }) => {
      if (!isJsonObject(message) || !isString(message.role) || !roles.has(message.role))
        return "message has no valid role";
      return message.content === undefined ? "message has no content" : undefined;
    },
  }),
  model_change: row<ModelChangeEntry>({
    lazy: false,
    check: (value) => {
      if (!isString(value.provider) || !isString(value.modelId)) return "model_change needs provider and modelId";
      return value.baseUrl === undefined || isString(value.baseUrl)
        ? undefined
        : "model_change has a non-string baseUrl";
    },
  }),
  thinking_level_change: row<ThinkingLevelChangeEntry>({
    lazy: false,
    check: ({ thinkingLevel }) =>
      isString(thinkingLevel) && thinkingLevels.has(thinkingLevel)
        ? undefined
        : "thinking_level_change has an unknown thinkingLevel",
  }),
  compaction: row<CompactionEntry>({
    lazy: false,
    check: (value) => {
      if (!isString(value.summary) || !isString(value.firstKeptEntryId) || typeof value.tokensBefore !== "number")
        return "compaction needs summary, firstKeptEntryId and tokensBefore";
      // Session totals add this usage, so a malformed one must not reach them.
      return value.usage === undefined || isJsonObject(value.usage) ? undefined : "compaction has a non-object usage";
    },
  }),
  branch_summary: row<BranchSummaryEntry>({
    lazy: true,
    check: (value) =>
      isString(value.summary) && isString(value.fromId) ? undefined : "branch_summary needs fromId and summary",
  }),
  label: row<LabelEntry>({
    lazy: false,
    check: (value) =>
      isString(value.targetId) && (value.label === undefined || isString(value.label))
        ? undefined
        : "label needs targetId and a string label",
  }),
  session_info: row<SessionInfoEntry>({
    lazy: false,
    check: (value) => (isString(value.name) ? undefined : "session_info needs a name"),
  }),
  custom: row<CustomEntry>({
    lazy: true,
    check: (value) => (isString(value.customType) ? undefined : "custom needs a customType"),
  }),
  // Eager: rewind, /diff and doctor look checkpoints up without building the context.
  checkpoint: row<CheckpointEntry>({ lazy: false, check: checkCheckpoint }),
  // Eager for the same reason: rewind without git reads them all.
  file_images: row<FileImagesEntry>({ lazy: false, check: checkFileImages }),
});

type EntryTable = typeof ENTRY_TYPES;

/** Every entry a session file holds: the union of the table's rows. */
export type EntryOfTable = {
  [K in keyof EntryTable]: EntryTable[K] extends EntryTypeSpec<infer E> ? E : never;
}[keyof EntryTable];

/** The entry type names, in table order. */
export const ENTRY_TYPE_NAMES = Object.keys(ENTRY_TYPES) as (keyof EntryTable)[];

/** Whether `type` names an entry type this build knows. */
export function isEntryType(type: string): type is keyof EntryTable {
  return Object.hasOwn(ENTRY_TYPES, type);
}

/** Types whose lines the reader keeps as bytes until the context needs them. */
export const LAZY_ENTRY_TYPES: ReadonlySet<string> = new Set(ENTRY_TYPE_NAMES.filter((name) => ENTRY_TYPES[name].lazy));
