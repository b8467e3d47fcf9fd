/**
 * What the agent has seen of each file: the read tool records a file's mtime and size, write and
 * edit record their own result, and edit refuses to touch a file that changed on disk since.
 */

/** The version of a file the agent last saw. */
export type FileVersion = { mtimeMs: number; size: number };

/** A per-session record of file versions, keyed by real path. */
export type ReadState = {
  record(realPath: string, version: FileVersion): void;
  get(realPath: string): FileVersion | undefined;
};

/** Creates an empty read-state. Share one between read, write and edit of a session. */
export function createReadState(): ReadState {
  const versions = new Map<string, FileVersion>();
  return {
    record: (realPath, version) => {
      versions.set(realPath, { mtimeMs: version.mtimeMs, size: version.size });
    },
    get: (realPath) => versions.get(realPath),
  };
}

/** Whether the file on disk is the version the agent saw. */
export function isSameVersion(seen: FileVersion, now: FileVersion): boolean {
  return seen.mtimeMs === now.mtimeMs && seen.size === now.size;
}
