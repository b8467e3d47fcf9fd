import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  fuzzyFilter,
  type SlashCommand as TuiSlashCommand,
} from "@mariozechner/pi-tui";
import { rgPath } from "@vscode/ripgrep";
import type { McpResourceCatalog } from "../../core/mcp/mcp-resource-catalog.js";
import { showPath } from "../../core/tools/file-names.js";
import { listFiles } from "../../core/tools/list-files.js";

const MAX_FILES = 20_000;
const CACHE_MS = 10_000;
const atPattern = /(?:^|\s)@([^\s]*)$/;
/** `@server:rest` — a mention of an MCP server's resource (mcp-mentions.ts reads it on submit). */
const serverPattern = /^([A-Za-z0-9_.-]+):(.*)$/;

/**
 * Editor completion: slash commands and Tab path completion from pi-tui, plus `@` fuzzy file
 * search over `rg --files` (which honours .gitignore). pi-tui's own `@` search needs `fd`, which
 * we do not ship; ripgrep we do. The file list is cached briefly so typing stays instant. With
 * MCP servers, `@server:` offers that server's resources (the catalog caches them per server)
 * and `@` alone lists the servers that have resources next to the files.
 */
export class FileAutocompleteProvider implements AutocompleteProvider {
  private readonly base: CombinedAutocompleteProvider;
  private files: { at: number; paths: Promise<string[]> } | undefined;

  constructor(
    commands: TuiSlashCommand[],
    private readonly cwd: string,
    private readonly mcpResources?: McpResourceCatalog,
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
    const resources = await this.suggestResources(query);
    if (resources) return resources;
    const paths = await this.listPaths();
    const found = query === "" ? paths.slice(0, 50) : fuzzyFilter(paths, query, (path) => path).slice(0, 50);
    const servers = this.serverItems(query);
    if (found.length + servers.length === 0) return null;
    return { prefix: `@${query}`, items: [...servers, ...found.map((path) => ({ value: `@${path}`, label: path }))] };
  }

  /** `@server:…` for a server with resources: its resources, fuzzy-matched on URI and name. */
  private async suggestResources(query: string): Promise<AutocompleteSuggestions | undefined> {
    const [, server = "", rest = ""] = serverPattern.exec(query) ?? [];
    if (!this.mcpResources?.servers().includes(server)) return undefined;
    // The list is shared by later keystrokes, so one keystroke's abort does not stop it.
    const listed = await this.mcpResources.resources(server);
    const found = rest === "" ? listed : fuzzyFilter(listed, rest, (entry) => `${entry.uri} ${entry.name}`);
    return {
      prefix: `@${query}`,
      // One column: URIs often share a long scheme and path, which the two-column menu would cut off.
      items: found.slice(0, 50).map((entry) => ({
        value: `@${server}:${entry.uri}`,
        label: `${entry.uri}  ${entry.name}${entry.description ? ` — ${entry.description}` : ""}`,
      })),
    };
  }

  /** The servers with resources whose name fits what was typed after `@`, as `@server:` items. */
  private serverItems(query: string): AutocompleteItem[] {
    const servers = this.mcpResources?.servers() ?? [];
    const fitting = query === "" ? servers : fuzzyFilter(servers, query, (name) => name);
    return fitting.map((name) => ({ value: `@${name}:`, label: `${name}:`, description: "MCP server resources" }));
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
    // A server item is the start of a mention: the URI follows without a space.
    const inserted = item.value.endsWith(":") ? item.value : `${item.value} `;
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
