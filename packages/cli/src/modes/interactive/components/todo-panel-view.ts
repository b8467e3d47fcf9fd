import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { TodoItem } from "../../../core/tools/todo-tool.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";

/** Items shown before "… N more"; the panel must not push the conversation off a small screen. */
const MAX_SHOWN = 8;

/**
 * The todo list pinned above the editor while it has items: a headline ("Todo 1/3") and one
 * line per item, the one in progress highlighted. Long lists show the items around the one in
 * progress. Empty (no lines) when the list is.
 */
export class TodoPanelView implements Component {
  private todos: readonly TodoItem[] = [];

  set(todos: readonly TodoItem[]): void {
    this.todos = todos;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.todos.length === 0) return [];
    const done = this.todos.filter((item) => item.status === "completed").length;
    const active = Math.max(
      0,
      this.todos.findIndex((item) => item.status !== "completed"),
    );
    const start = Math.min(Math.max(0, active - 2), Math.max(0, this.todos.length - MAX_SHOWN));
    const shown = this.todos.slice(start, start + MAX_SHOWN);
    const lines = [style.gray(`  Todo ${done}/${this.todos.length}`)];
    if (start > 0) lines.push(style.gray(`    … ${start} earlier`));
    for (const item of shown) lines.push(formatItem(item));
    const after = this.todos.length - start - shown.length;
    if (after > 0) lines.push(style.gray(`    … ${after} more`));
    return lines.map((line) => truncateToWidth(line, width));
  }
}

function formatItem(item: TodoItem): string {
  const text = sanitizeText(item.content).replace(/\s+/g, " ");
  if (item.status === "completed") return style.gray(`    ✓ ${style.strikethrough(text)}`);
  if (item.status === "in_progress") return style.yellow(`    ▶ ${style.bold(text)}`);
  return `    ○ ${text}`;
}
