/**
 * Splits a bash command into the simple commands it would run, with a real shell parser
 * (tree-sitter-bash through web-tree-sitter), so a rule is checked against every part of
 * `a && b`, `a; b`, `a | b`, `$(…)`, `>(…)`, subshells and function bodies. Loaded lazily: the
 * parser costs ~70 ms and is only needed when bash rules exist.
 */
import { createRequire } from "node:module";
import { basename } from "node:path";
import type { Node, Parser } from "web-tree-sitter";

/** One simple command, after its wrappers (`sudo`, `env`, `timeout`, `xargs`…) are taken off. */
export type SimpleCommand = {
  /** The words as written (static text), wrappers included. */
  rawText: string;
  /** The words without assignments and wrappers: what rules match. */
  text: string;
  /**
   * The same command as deny and ask rules also see it: the program by its base name
   * (`/usr/bin/touch x` is `touch x`). Allow rules match `text` only, so an allow is never widened.
   */
  variants?: string[];
  /** Runs code the parser cannot see (`sh -c`, `eval`, `source`, a computed command name). */
  opaque: boolean;
  /** Prefixed `VAR=value` assignments (can change what the command does: PAGER, LD_PRELOAD…). */
  assignments: boolean;
  /** Through sudo/doas. */
  privileged: boolean;
};

export type SplitResult = { ok: true; commands: SimpleCommand[]; writesFiles: boolean } | { ok: false; reason: string };

let parserPromise: Promise<Parser> | undefined;

/** The bash parser, loaded once (the wasm files ship in the npm packages; no network). */
function loadParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    // Lazy because web-tree-sitter and its wasm cost ~70 ms, paid only when bash rules exist.
    const { Parser, Language } = await import("web-tree-sitter");
    await Parser.init();
    const require = createRequire(import.meta.url);
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  parserPromise.catch(() => {
    parserPromise = undefined;
  });
  return parserPromise;
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"]);
const CODE_RUNNERS = new Set(["eval", "source", ".", "exec"]);
/** Wrapper → its options that take a value. */
const WRAPPERS: Record<string, { valued: string[]; positional?: number; privileged?: boolean }> = {
  sudo: { valued: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"], privileged: true },
  doas: { valued: ["-u", "-C"], privileged: true },
  env: { valued: ["-u", "-C", "-S", "--unset", "--chdir"] },
  timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  nice: { valued: ["-n", "--adjustment"] },
  ionice: { valued: ["-c", "-n", "-p"] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  time: { valued: ["-f", "-o"] },
  command: { valued: [] },
  builtin: { valued: [] },
  stdbuf: { valued: ["-i", "-o", "-e"] },
  xargs: { valued: ["-I", "-i", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter"] },
  parallel: { valued: ["-j", "--jobs", "-S", "--sshlogin", "-I", "--colsep", "-d", "--delimiter", "-a", "--arg-file"] },
  chroot: { valued: ["--userspec", "--groups"], positional: 1, privileged: true },
  unshare: { valued: [] },
  flock: { valued: ["-w", "--timeout", "-E", "--conflict-exit-code"], positional: 1 },
  watch: { valued: ["-n", "--interval", "-d"] },
};

/** find's actions that run a command: the words after them, up to `;` or `{} +`, are a command. */
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** The program's base name: rules name `touch`, the command may say `/usr/bin/touch` or `./touch`. */
function programName(word: string | undefined): string {
  return word === undefined ? "" : basename(word);
}

/** The commands `find … -exec CMD {} ;` runs. */
function findActions(words: string[]): string[][] {
  const commands: string[][] = [];
  for (let index = 1; index < words.length; index++) {
    if (!FIND_ACTIONS.has(words[index] as string)) continue;
    const start = index + 1;
    let end = start;
    while (end < words.length && words[end] !== ";" && !(words[end] === "+" && words[end - 1] === "{}")) end++;
    if (end > start) commands.push(words.slice(start, end));
    index = end;
  }
  return commands;
}

/** The static text of a word, or undefined when it depends on expansion at run time. */
function staticText(node: Node): string | undefined {
  switch (node.type) {
    case "word":
    case "number":
      return node.text.replace(/\\(.)/gs, "$1");
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      const parts = node.namedChildren.filter((child) => child !== null);
      if (parts.some((child) => child.type !== "string_content")) return undefined;
      return node.text.slice(1, -1);
    }
    case "concatenation": {
      let text = "";
      for (const child of node.namedChildren) {
        const part = child ? staticText(child) : undefined;
        if (part === undefined) return undefined;
        text += part;
      }
      return text;
    }
    default:
      return undefined;
  }
}

function hasError(node: Node): boolean {
  if (node.type === "ERROR" || node.isMissing) return true;
  return node.children.some((child) => child !== null && hasError(child));
}

/** Removes wrapper words from the front; returns what is left and whether a wrapper was privileged. */
function stripWrappers(words: string[]): { words: string[]; privileged: boolean; assignments: boolean } {
  let rest = words;
  let privileged = false;
  let assignments = false;
  for (let guard = 0; guard < 20; guard++) {
    const wrapper = rest[0] === undefined ? undefined : WRAPPERS[programName(rest[0])];
    if (!wrapper) break;
    privileged ||= wrapper.privileged === true;
    let index = 1;
    while (index < rest.length && rest[index]?.startsWith("-") && rest[index] !== "--") {
      index += wrapper.valued.includes(rest[index] as string) ? 2 : 1;
    }
    if (rest[index] === "--") index++;
    if (programName(rest[0]) === "env") {
      while (index < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[index] as string)) {
        assignments = true;
        index++;
      }
    }
    index += wrapper.positional ?? 0;
    if (index >= rest.length) break;
    rest = rest.slice(index);
  }
  return { words: rest, privileged, assignments };
}

function toSimpleCommands(node: Node): SimpleCommand[] {
  const words: string[] = [];
  let dynamic = false;
  let assignments = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment") assignments = true;
    else if (child.type === "command_name" || child.type.endsWith("redirect") === false) {
      const target = child.type === "command_name" ? child.namedChildren[0] : child;
      const text = target ? staticText(target) : undefined;
      if (text === undefined) {
        if (child.type === "command_name") dynamic = true;
        words.push(child.text);
      } else words.push(text);
    }
  }
  return fromWords(words, { dynamic, assignments, privileged: false });
}

/** The simple command of `words`, then those it runs through find's actions. */
function fromWords(
  words: string[],
  context: { dynamic: boolean; assignments: boolean; privileged: boolean },
): SimpleCommand[] {
  const stripped = stripWrappers(words);
  const name = programName(stripped.words[0]);
  const opaque =
    context.dynamic ||
    CODE_RUNNERS.has(name) ||
    (SHELLS.has(name) && (stripped.words.length === 1 || stripped.words.some((word) => /^-\w*c/.test(word)))) ||
    (programName(words[0]) === "xargs" && SHELLS.has(name));
  const text = stripped.words.join(" ");
  const byName = [name, ...stripped.words.slice(1)].join(" ");
  const privileged = context.privileged || stripped.privileged;
  const command: SimpleCommand = {
    rawText: words.join(" "),
    text,
    ...(byName !== text ? { variants: [byName] } : {}),
    opaque,
    assignments: context.assignments || stripped.assignments,
    privileged,
  };
  if (name !== "find") return [command];
  const actions = findActions(stripped.words).flatMap((action) =>
    fromWords(action, { dynamic: false, assignments: false, privileged }),
  );
  return [command, ...actions];
}

const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** Whether an output redirection writes to a file (not /dev/null or another descriptor). */
function writesFile(node: Node): boolean {
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.text ?? "";
  if (!operator.includes(">")) return false;
  const destination = node.childForFieldName("destination");
  if (!destination) return true;
  const text = staticText(destination);
  if (text !== undefined && (HARMLESS_TARGETS.has(text) || /^\d+$|^-$/.test(text))) return false;
  return true;
}

/**
 * Every simple command of `command`, in source order (substitutions and bodies included), or why
 * it cannot be split (a syntax error). Never throws for bad shell input; rejects only if the
 * parser itself cannot be loaded.
 */
export async function splitBashCommand(command: string): Promise<SplitResult> {
  const parser = await loadParser();
  const tree = parser.parse(command);
  if (!tree) return { ok: false, reason: "the shell parser returned nothing" };
  try {
    if (hasError(tree.rootNode)) return { ok: false, reason: "the command does not parse as bash" };
    const commands: SimpleCommand[] = [];
    let writes = false;
    const visit = (node: Node) => {
      if (node.type === "command") commands.push(...toSimpleCommands(node));
      if (node.type === "file_redirect" && writesFile(node)) writes = true;
      for (const child of node.namedChildren) if (child) visit(child);
    };
    visit(tree.rootNode);
    return { ok: true, commands, writesFiles: writes };
  } finally {
    tree.delete();
  }
}
