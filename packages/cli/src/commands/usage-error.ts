import { type ParseArgsConfig, parseArgs } from "node:util";
/**
 * One sentence for a bad command line of a subcommand, from node:util parseArgs' error (whose own
 * message is two sentences of advice about `--`): what was wrong and where the usage is.
 */
export function describeUsageError(command: string, error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = String(message ?? error);
  // "'-s, --scope <value>'" names the option both ways: the long name is enough.
  const option = /'([^']+)'/.exec(text)?.[1]?.replace(/^-\w, /, "");
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option)
    return `gyre ${command} has no option ${option}; see gyre ${command} --help.`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option)
    return `gyre ${command}: ${option.replace(/ <value>$/, "")} ${/argument missing/.test(text) ? "needs a value" : "takes no value"}; see gyre ${command} --help.`;
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return `gyre ${command} takes no argument ${option ?? ""}; see gyre ${command} --help.`.replace("  ", " ");
  return `gyre ${command}: ${text.split(". ")[0]?.replace(/\.$/, "")}; see gyre ${command} --help.`;
}

type Options = NonNullable<ParseArgsConfig["options"]>;
export type ParsedWords<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/** A subcommand's words parsed by node:util parseArgs (strict, positionals allowed), or the one-sentence error. */
export function parseCommandWords<T extends Options>(
  command: string,
  words: string[],
  options: T,
): { ok: true; value: ParsedWords<T> } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseArgs({ args: words, options, allowPositionals: true, strict: true }) };
  } catch (error) {
    return { ok: false, error: describeUsageError(command, error) };
  }
}
