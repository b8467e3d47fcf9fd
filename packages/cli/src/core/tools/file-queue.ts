/**
 * Serialises work per file so parallel write/edit calls on one file apply one after another
 * instead of racing (the second edit sees the first one's result).
 */

/** Runs tasks one at a time per key; tasks for different keys run concurrently. */
export type FileQueue = {
  /** Runs `task` after every earlier task for `key` settled; resolves or rejects with its result. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
};

/** Creates an empty queue. Share one between the write and edit tools of a session. */
export function createFileQueue(): FileQueue {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      // Drop the entry once the chain is idle so the map does not grow with every file touched.
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
