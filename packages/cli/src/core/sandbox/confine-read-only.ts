/**
 * A helper program that only needs to read the workspace (a language server, docs/lsp.md) runs
 * under the bash sandbox's mount view in its read-only mode: the whole file system read-only,
 * the workspace included, a private writable /tmp, the same masks (host sockets, `sandbox.denyRead`,
 * `read(...)` deny rules), no network, and bwrap's `--die-with-parent`, so it ends with gyre. One
 * bwrap per program, not a request to the bash supervisor: it lives as long as the session and
 * speaks on its own stdio.
 */
import { buildBwrapArgs } from "./bwrap-args.js";
import type { SandboxPolicy } from "./types.js";

/** How to start a program read-only: `prefix` goes before its command and arguments. */
export type ReadOnlyLaunch = {
  /** bwrap and its arguments up to and including `--`. */
  prefix: { command: string; args: string[] };
  /** Added to the program's environment: temporary files go to the private, writable /tmp. */
  env: NodeJS.ProcessEnv;
};

/** The launch for a program started in `cwd`, with `policy`'s masks; network always off. */
export async function confineReadOnly(options: {
  policy: Omit<SandboxPolicy, "mode">;
  bwrapPath: string;
  cwd: string;
}): Promise<ReadOnlyLaunch> {
  const policy: SandboxPolicy = { ...options.policy, mode: "read-only", network: false, allowedDomains: [] };
  const plan = await buildBwrapArgs(policy, { chdir: options.cwd });
  return {
    prefix: { command: options.bwrapPath, args: [...plan.args, "--"] },
    env: { TMPDIR: "/tmp", TMP: "/tmp", TEMP: "/tmp" },
  };
}
