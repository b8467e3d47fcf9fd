/**
 * The sandbox contract (docs/design/safety.md): what a bash command may touch. Plain JSON throughout so the
 * level can go into the JSON header and RPC state.
 */

/** `workspace-write` (default), `read-only` (only a private /tmp writable), `off` (no OS sandbox). */
export type SandboxMode = "workspace-write" | "read-only" | "off";

export const SANDBOX_MODES: readonly SandboxMode[] = ["workspace-write", "read-only", "off"];

/** What the sandbox enforces for one session; paths are absolute or `~/`-relative. */
export type SandboxPolicy = {
  mode: Exclude<SandboxMode, "off">;
  /** The workspace root: writable under `workspace-write`, the default working directory. */
  cwd: string;
  /** More writable directories (`--allow-path`, `sandbox.writableRoots`). */
  writableRoots: readonly string[];
  /** Re-mounted read-only even inside a writable root (on top of the built-in ones). */
  protectedPaths: readonly string[];
  /** Masked: an empty directory or an empty file in their place. */
  denyRead: readonly string[];
  /**
   * The patterns of `read(...)` deny rules: every file or folder under the cwd they match when
   * the sandbox starts is masked too (see `permissions/read-deny.ts`).
   */
  denyReadPatterns?: readonly string[];
  network: boolean;
  /**
   * With `network` off, hosts still reachable through gyre's filtering proxy (HTTP_PROXY and
   * HTTPS_PROXY inside the sandbox point at it). Exact names, listed IPs, or `*.domain`.
   */
  allowedDomains?: readonly string[];
  gyreHome: string;
  homeDir: string;
  /** Where the host's agent sockets are named (`SSH_AUTH_SOCK`…); read, never passed on. */
  hostEnv: NodeJS.ProcessEnv;
  /** At most this many processes at once in the sandbox (fork bombs). */
  maxProcesses: number;
  /** Per-process data limit in MiB (RLIMIT_DATA). */
  maxMemoryMb: number;
};

/** The result of probing whether bubblewrap can run here; cached per process. */
export type SandboxAvailability =
  | { available: true; bwrapPath: string }
  | { available: false; cause: string; fix: string };
