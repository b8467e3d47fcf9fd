import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  fuzzyFilter,
  type SlashCommand as TuiSlashCommand,
} from "@mariozechner/pi-tui";
import { rgPath } from "@vscode/ripgrep";
import { showPath } from "../../core/tools/file-names.js";
import { listFiles } from "../../core/tools/list-files.js";

const MAX_FILES = 20_000;
const CACHE_MS = 10_000;
const atPattern = /(?:^|\s)@([^\s]*)$/;

/**
 * Editor completion: slash commands and Tab path completion from pi-tui, plus `@` fuzzy file
 * search over `rg --files` (which honours .gitignore). pi-tui's own `@` search needs `fd`, which
 * we do not ship; ripgrep we do. The file list is cached briefly so typing stays instant.
 */
export class FileAutocompleteProvider implements AutocompleteProvider {
  private readonly base: CombinedAutocompleteProvider;
  private files: { at: number; paths: Promise<string[]> } | undefined;

  constructor(
    commands: TuiSlashCommand[],
    private readonly cwd: string,
  ) {
    this.base = new CombinedAutocompleteProvider(commands, cwd);
  }

  async getSuggestions(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    options: { signal: AbortSignal; force?: boolean },
  ): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const match = atPattern.exec(before);
    if (!match) return this.base.getSuggestions(lines, cursorLine, cursorCol, options);
    const query = match[1] ?? "";
    const paths = await this.listPaths();
    const found = query === "" ? paths.slice(0, 50) : fuzzyFilter(paths, query, (path) => path).slice(0, 50);
    if (found.length === 0) return null;
    return { prefix: `@${query}`, items: found.map((path) => ({ value: `@${path}`, label: path })) };
  }

  applyCompletion(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    item: AutocompleteItem,
    prefix: string,
  ): { lines: string[]; cursorLine: number; cursorCol: number } {
    // Keys typed in one burst (a paste, tmux, a fast typist) can reach Enter before the
    // suggestions for the new text arrive; a stale prefix would splice the old suggestion into
    // what was typed ("/cost" + "/model" → "/cosmodel"), so the text is left as typed.
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    if (!before.endsWith(prefix)) return { lines, cursorLine, cursorCol };
    if (!prefix.startsWith("@")) return this.base.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    const line = lines[cursorLine] ?? "";
    const start = cursorCol - prefix.length;
    const inserted = `${item.value} `;
    const next = [...lines];
    next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
    return { lines: next, cursorLine, cursorCol: start + inserted.length };
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.base.shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
  }

  private listPaths(): Promise<string[]> {
    if (!this.files || Date.now() - this.files.at > CACHE_MS) {
      const paths = listFiles({
        rgPath,
        cwd: this.cwd,
        glob: "**",
        max: MAX_FILES,
        signal: AbortSignal.timeout(10_000),
      }).then(
        // Names that are not UTF-8 (or hold control characters) as the file tools show them: `caf\xE9.txt`.
        (listed) => listed.paths.map(showPath),
        () => [],
      );
      // Shared by later keystrokes, so not tied to one request's signal.
      this.files = { at: Date.now(), paths };
    }
    return this.files.paths;
  }
}
