import {
  type Component,
  type Focusable,
  fuzzyFilter,
  Input,
  matchesKey,
  type SelectItem,
  SelectList,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import { sanitizeText } from "../sanitize-text.js";
import { selectListTheme, style } from "../theme.js";

/** The most rows a dialog's title takes; a longer one ends with a line saying how many were left out. */
const maxTitleRows = 20;

/**
 * A dialog's title as screen rows: made inert (it can quote an MCP server or a command), each of
 * its lines wrapped to `width`. A rendered line must never hold a newline: pi-tui counts one row
 * per line, so a title with one ("MCP server … asks to use the model — …\n\n(1 message, …)") put
 * the rows below it lower than pi-tui believed, and the next spinner frame drew the status line
 * over the title and left the old one behind.
 */
export function renderDialogTitle(title: string, width: number): string[] {
  const rows = sanitizeText(title)
    .split("\n")
    .flatMap((line) => wrapTextWithAnsi(line, Math.max(1, width)));
  if (rows.length <= maxTitleRows) return rows.map((row) => style.bold(row));
  const shown = rows.slice(0, maxTitleRows - 1).map((row) => style.bold(row));
  return [...shown, truncateToWidth(style.gray(`… ${rows.length - shown.length} more lines`), width)];
}

export type SelectDialogOptions = {
  title: string;
  items: SelectItem[];
  /** Value of the item selected at first. */
  initial?: string;
  maxVisible?: number;
  onDone: (value: string | undefined) => void;
};

/**
 * A titled list that the user narrows by typing (fuzzy, over label and description), moves
 * through with the arrows, picks with Enter and leaves with Esc. Takes the editor's place.
 */
export class SelectDialog implements Component, Focusable {
  private readonly filter = new Input();
  private list: SelectList;
  private finished = false;
  private focusedState = false;

  constructor(private readonly options: SelectDialogOptions) {
    this.list = this.createList(options.items);
    const index = options.items.findIndex((item) => item.value === options.initial);
    if (index >= 0) this.list.setSelectedIndex(index);
  }

  get focused(): boolean {
    return this.focusedState;
  }

  set focused(value: boolean) {
    this.focusedState = value;
    this.filter.focused = value;
  }

  handleInput(data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) this.finish(undefined);
    else if (matchesKey(data, "enter")) this.finish(this.list.getSelectedItem()?.value);
    else if (["up", "down", "pageUp", "pageDown"].some((key) => matchesKey(data, key as "up")))
      this.list.handleInput(data);
    else this.filterBy(data);
  }

  private filterBy(data: string): void {
    const before = this.filter.getValue();
    this.filter.handleInput(data);
    const query = this.filter.getValue();
    if (query !== before) {
      const items = query.trim() === "" ? this.options.items : fuzzyFilter(this.options.items, query, describe);
      this.list = this.createList(items);
    }
  }

  invalidate(): void {
    this.filter.invalidate();
    this.list.invalidate();
  }

  render(width: number): string[] {
    const title = renderDialogTitle(this.options.title, width);
    const hint = truncateToWidth(style.gray("type to filter · ↑↓ move · Enter select · Esc cancel"), width);
    return [style.gray("─".repeat(width)), ...title, ...this.filter.render(width), ...this.list.render(width), hint];
  }

  private finish(value: string | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.options.onDone(value);
  }

  private createList(items: SelectItem[]): SelectList {
    return createWideList(items, this.options.items, this.options.maxVisible ?? 10);
  }
}

/**
 * A SelectList of `items` whose label column fits the longest label of `allItems` (32–64
 * columns): pi-tui cuts labels at 32 by default, too short for a session's first message, and
 * measuring over all items keeps the columns still while filtering.
 */
export function createWideList(items: SelectItem[], allItems: readonly SelectItem[], maxVisible: number): SelectList {
  const longest = Math.max(0, ...allItems.map((item) => visibleWidth(item.label ?? item.value)));
  const width = Math.min(64, Math.max(32, longest + 2));
  return new SelectList(items, maxVisible, selectListTheme, {
    minPrimaryColumnWidth: width,
    maxPrimaryColumnWidth: width,
  });
}

function describe(item: SelectItem): string {
  return `${item.label} ${item.description ?? ""}`;
}

/** A titled one-line input; Enter gives its value, Esc gives undefined. Takes the editor's place. */
export class InputDialog implements Component, Focusable {
  private readonly input = new Input();
  private finished = false;
  private focusedState = false;

  constructor(
    private readonly title: string,
    private readonly onDone: (value: string | undefined) => void,
    initial = "",
  ) {
    this.input.setValue(initial);
    this.input.onSubmit = (value) => this.finish(value);
    this.input.onEscape = () => this.finish(undefined);
  }

  get focused(): boolean {
    return this.focusedState;
  }

  set focused(value: boolean) {
    this.focusedState = value;
    this.input.focused = value;
  }

  handleInput(data: string): void {
    if (matchesKey(data, "ctrl+c")) this.finish(undefined);
    else this.input.handleInput(data);
  }

  invalidate(): void {
    this.input.invalidate();
  }

  render(width: number): string[] {
    return [
      style.gray("─".repeat(width)),
      ...renderDialogTitle(this.title, width),
      ...this.input.render(width),
      truncateToWidth(style.gray("Enter confirm · Esc cancel"), width),
    ];
  }

  private finish(value: string | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.onDone(value);
  }
}
