/** Flag parsing shared by `gyre eval` and `gyre replay`: node:util's parseArgs, strict, one sentence on error. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { CliError, describeUsageError } from "gyre/fleet-support";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses `argv` against `options` (positionals allowed); a bad flag is a `CliError` ("bad_usage") naming `command`. */
export function parseCommandArgs<T extends Options>(
  command: string,
  argv: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError("bad_usage", describeUsageError(command, error));
  }
}
