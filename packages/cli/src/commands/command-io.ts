/** What a subcommand may use: the folder, the environment, gyre's home and the standard streams (docs/cli.md). */
import type { Readable, Writable } from "node:stream";

export type CommandIo = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  gyreHome: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
};
