import {
  type Component,
  type Focusable,
  getKeybindings,
  matchesKey,
  type SettingItem,
  SettingsList,
  type SettingsListTheme,
  truncateToWidth,
} from "@mariozechner/pi-tui";
import type { SettingsChange } from "../../../core/config/settings-writer.js";
import { style } from "../theme.js";
import { InputDialog } from "./select-dialog.js";
import { isUnsetLabel, type SettingRow } from "./settings-rows.js";

const listTheme: SettingsListTheme = {
  label: (text, selected) => (selected ? style.bold(style.cyan(text)) : text),
  value: (text, selected) => (selected ? style.bold(text) : style.yellow(text)),
  description: style.gray,
  cursor: style.cyan("› "),
  hint: style.gray,
};

export type SettingsEditorOptions = {
  title: string;
  rows: SettingRow[];
  /** The user's settings file as it is now. */
  settings: Record<string, unknown>;
  /** Writes the changes; resolves the settings as saved, or an error sentence (nothing written). */
  save(
    changes: SettingsChange[],
  ): Promise<{ ok: true; settings: Record<string, unknown>; note?: string } | { ok: false; error: string }>;
  requestRender(): void;
  onDone(): void;
};

/**
 * The `/settings` editor: one row per setting, ↑↓ to move, Enter/Space/→ for the next value
 * (← the previous), Enter on a typed setting opens an input. Each change is saved at once; an
 * error shows under the list and the row keeps its old value. Takes the editor's place.
 */
export class SettingsEditor implements Component, Focusable {
  private readonly list: SettingsList;
  private settings: Record<string, unknown>;
  private message = "";
  /** The list's cursor, kept in step with it (pi-tui keeps its own private). */
  private index = 0;
  /** Whether a typed setting's input is open (keys go to it). */
  private typing = false;
  focused = false;
  private finished = false;

  constructor(private readonly options: SettingsEditorOptions) {
    this.settings = options.settings;
    const items = options.rows.map((row): SettingItem => {
      const item: SettingItem = {
        id: row.id,
        label: row.label,
        description: row.description,
        currentValue: row.read(this.settings),
      };
      if (row.values) item.values = [...row.values];
      else
        item.submenu = (current, done) => {
          this.typing = true;
          const close = (value: string | undefined) => {
            this.typing = false;
            done(value);
          };
          const input = new InputDialog(
            `${row.label}: ${row.description}`,
            close,
            isUnsetLabel(current) ? "" : current,
          );
          input.focused = true;
          return input;
        };
      return item;
    });
    this.list = new SettingsList(
      items,
      Math.min(items.length, 12),
      listTheme,
      (id, value) => void this.change(id, value),
      () => this.finish(),
    );
  }

  handleInput(data: string): void {
    if (this.typing) this.list.handleInput(data);
    else if (matchesKey(data, "ctrl+c")) this.finish();
    else this.moveOrChange(data);
    this.options.requestRender();
  }

  private moveOrChange(data: string): void {
    const row = this.options.rows[this.index];
    const count = this.options.rows.length;
    const keys = getKeybindings();
    if (keys.matches(data, "tui.select.up")) this.index = (this.index - 1 + count) % count;
    else if (keys.matches(data, "tui.select.down")) this.index = (this.index + 1) % count;
    if (row?.values && (matchesKey(data, "left") || matchesKey(data, "right"))) {
      const current = row.values.indexOf(row.read(this.settings));
      const step = matchesKey(data, "left") ? -1 : 1;
      const next = row.values[(current + step + row.values.length) % row.values.length] as string;
      this.list.updateValue(row.id, next);
      void this.change(row.id, next);
    } else this.list.handleInput(data);
  }

  invalidate(): void {
    this.list.invalidate();
  }

  render(width: number): string[] {
    const lines = [style.gray("─".repeat(width)), truncateToWidth(style.bold(this.options.title), width)];
    lines.push(...this.list.render(width));
    if (this.message) lines.push(truncateToWidth(this.message, width));
    return lines;
  }

  private async change(id: string, value: string): Promise<void> {
    const row = this.options.rows.find((candidate) => candidate.id === id);
    if (!row) return;
    const result = await this.options.save(row.toChanges(value));
    if (result.ok) {
      this.settings = result.settings;
      this.message = style.green(
        `Saved ${row.label}: ${row.read(this.settings)}.${result.note ? ` ${result.note}` : ""}`,
      );
    } else this.message = style.red(result.error);
    // The row shows what the file holds: the new value, or the old one after an error.
    this.list.updateValue(id, row.read(this.settings));
    this.options.requestRender();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.options.onDone();
  }
}
