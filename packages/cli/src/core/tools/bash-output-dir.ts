/**
 * Where the bash tool saves an output too long to return (docs/safety.md, "Long output"): one
 * private folder per gyre process in the host's temp dir, mounted read-only at the same path into
 * the sandbox and open to the read and grep tools, so the path the result names works for the
 * model's next `read` or `bash` alike. Its name is random (nobody can prepare it in advance), it is
 * 0700, and it goes when gyre exits.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folder's path; it exists once `ensureBashOutputDir` has resolved. */
export const BASH_OUTPUT_DIR = join(tmpdir(), `gyre-bash-output-${process.pid}-${randomBytes(6).toString("hex")}`);

let made: Promise<string> | undefined;

/** Creates the folder (once per process) and returns its path; rejects when it cannot be made. */
export function ensureBashOutputDir(): Promise<string> {
  made ??= mkdir(BASH_OUTPUT_DIR, { mode: 0o700 }).then(() => {
    process.once("exit", () => rmSync(BASH_OUTPUT_DIR, { recursive: true, force: true }));
    return BASH_OUTPUT_DIR;
  });
  made.catch(() => {
    made = undefined;
  });
  return made;
}
