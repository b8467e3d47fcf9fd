/**
 * Redis key names of the fleet, in one place (every key starts with `gyre:fleet:<queue>:`: job ids
 * are numbered per queue, so two queues on one Redis must not share keys).
 */
export const fleetKeys = {
  /** Stream of a job's events (each entry's field `event` is one JSON line of JSON mode). */
  events: (queue: string, jobId: string) => `gyre:fleet:${queue}:events:${jobId}`,
  /** Stream of a job's session journal lines (field `line`), appended before the session file. */
  journal: (queue: string, jobId: string) => `gyre:fleet:${queue}:journal:${jobId}`,
  /** Set when a job is to be cancelled. */
  cancel: (queue: string, jobId: string) => `gyre:fleet:${queue}:cancel:${jobId}`,
  /** Pub/sub channel on which cancels are announced (the message is the job id). */
  cancelChannel: (queue: string) => `gyre:fleet:${queue}:cancels`,
} as const;

/** Default queue name. */
export const DEFAULT_QUEUE = "gyre";
