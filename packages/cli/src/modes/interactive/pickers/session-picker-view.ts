import {
  type Component,
  type Focusable,
  Input,
  matchesKey,
  type SelectList,
  truncateToWidth,
} from "@mariozechner/pi-tui";
import type { SessionSummary } from "../../../core/session/types.js";
import { countOf } from "../count-of.js";
import { style } from "../theme.js";
import { createWideList } from "./select-dialog.js";
import { isHeadless, toSessionItems } from "./session-picker.js";

export type SessionPickerOptions = {
  title: string;
  /** Sessions of this folder, or of every folder. */
  load(allProjects: boolean): Promise<SessionSummary[]>;
  rename(path: string, name: string): Promise<void>;
  remove(path: string): Promise<void>;
  home?: string | undefined;
  requestRender(): void;
  /** The chosen session's path, or undefined when the user left. */
  onDone(path: string | undefined): void;
};

type Prompt =
  | { kind: "none" }
  | { kind: "delete"; session: SessionSummary }
  | { kind: "rename"; session: SessionSummary; input: Input };

const KEYS_HINT = "Enter open · Ctrl+R rename · Ctrl+D delete · Ctrl+P all projects · Ctrl+T -p runs · Esc cancel";

/**
 * The session picker of `/resume` and `gyre --resume`: search as you type, rename (Ctrl+R),
 * delete after a y/n question (Ctrl+D), this folder or every project (Ctrl+P), and `-p` runs
 * hidden until Ctrl+T shows them. Takes the editor's place.
 */
export class SessionPicker implements Component, Focusable {
  private readonly filter = new Input();
  private sessions: SessionSummary[] = [];
  private list: SelectList;
  private allProjects = false;
  private showHeadless = false;
  private prompt: Prompt = { kind: "none" };
  private message = "loading sessions…";
  private finished = false;
  focused = false;

  constructor(private readonly options: SessionPickerOptions) {
    this.list = createWideList([], [], 10);
    void this.reload();
  }

  handleInput(data: string): void {
    if (this.prompt.kind === "delete") this.answerDelete(this.prompt.session, data);
    else if (this.prompt.kind === "rename") this.typeName(this.prompt, data);
    else this.handleListKey(data);
    this.options.requestRender();
  }

  private handleListKey(data: string): void {
    const selected = this.selected();
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) this.finish(undefined);
    else if (matchesKey(data, "enter")) {
      if (selected) this.finish(selected.path);
    } else if (["up", "down", "pageUp", "pageDown"].some((key) => matchesKey(data, key as "up")))
      this.list.handleInput(data);
    else if (matchesKey(data, "ctrl+p")) {
      this.allProjects = !this.allProjects;
      void this.reload();
    } else if (matchesKey(data, "ctrl+t")) {
      this.showHeadless = !this.showHeadless;
      this.rebuild();
    } else if (matchesKey(data, "ctrl+d")) {
      if (selected) this.prompt = { kind: "delete", session: selected };
    } else if (matchesKey(data, "ctrl+r")) {
      if (selected) this.startRename(selected);
    } else {
      const before = this.filter.getValue();
      this.filter.handleInput(data);
      if (this.filter.getValue() !== before) this.rebuild();
    }
  }

  private startRename(session: SessionSummary): void {
    const input = new Input();
    input.setValue(session.name ?? "");
    input.focused = true;
    this.prompt = { kind: "rename", session, input };
  }

  private answerDelete(session: SessionSummary, data: string): void {
    this.prompt = { kind: "none" };
    if (data.toLowerCase() !== "y") {
      this.message = "Not deleted.";
      return;
    }
    this.act(() => this.options.remove(session.path), `Deleted "${this.labelOf(session)}".`);
  }

  private typeName(prompt: Extract<Prompt, { kind: "rename" }>, data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.prompt = { kind: "none" };
      return;
    }
    if (!matchesKey(data, "enter")) {
      prompt.input.handleInput(data);
      return;
    }
    this.prompt = { kind: "none" };
    const name = prompt.input.getValue().trim();
    if (!name) {
      this.message = "Not renamed: the name is empty.";
      return;
    }
    this.act(() => this.options.rename(prompt.session.path, name), `Renamed to "${name}".`);
  }

  /** Runs a file action, then lists again; a failure (another gyre has the session open) is shown. */
  private act(action: () => Promise<void>, done: string): void {
    action().then(
      () => this.reload(done),
      (error: unknown) => {
        this.message = style.red((error as Error).message);
        this.options.requestRender();
      },
    );
  }

  private async reload(message = ""): Promise<void> {
    try {
      this.sessions = await this.options.load(this.allProjects);
      this.message = message;
    } catch (error) {
      this.sessions = [];
      this.message = style.red(`Cannot list sessions: ${(error as Error).message}`);
    }
    this.rebuild();
    this.options.requestRender();
  }

  /** The sessions the toggles let through. */
  private shown(): SessionSummary[] {
    return this.showHeadless ? this.sessions : this.sessions.filter((session) => !isHeadless(session));
  }

  private rebuild(): void {
    const all = toSessionItems(this.shown(), { showFolder: this.allProjects, home: this.options.home });
    // Words, not fuzzy letters: in long rows of paths and models, a fuzzy match finds nearly anything.
    const words = this.filter.getValue().toLowerCase().split(/\s+/).filter(Boolean);
    const items = all.filter((item) => {
      const text = `${item.label} ${item.description ?? ""}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
    this.list = createWideList(items, all, 10);
  }

  private selected(): SessionSummary | undefined {
    const path = this.list.getSelectedItem()?.value;
    return this.sessions.find((session) => session.path === path);
  }

  private labelOf(session: SessionSummary): string {
    return (session.name ?? session.firstMessage) || session.id.slice(0, 8);
  }

  invalidate(): void {
    this.filter.invalidate();
    this.list.invalidate();
  }

  render(width: number): string[] {
    // The search field shows its cursor while the picker has the focus.
    this.filter.focused = this.focused;
    const scope = this.allProjects ? "all projects" : "this folder";
    const hidden = this.sessions.filter(isHeadless).length;
    const headless = this.showHeadless ? "-p runs shown" : `${countOf(hidden, "-p run")} hidden`;
    const lines = [
      style.gray("─".repeat(width)),
      truncateToWidth(`${style.bold(this.options.title)} ${style.gray(`(${scope} · ${headless})`)}`, width),
      ...this.filter.render(width),
    ];
    if (this.shown().length === 0 && !this.message.startsWith("loading"))
      lines.push(
        style.gray(
          this.allProjects ? "  No sessions yet." : "  No other sessions in this folder; Ctrl+P lists every project.",
        ),
      );
    else lines.push(...this.list.render(width));
    lines.push(...this.promptLines(width));
    if (this.message) lines.push(truncateToWidth(this.message, width));
    lines.push(truncateToWidth(style.gray(KEYS_HINT), width));
    return lines;
  }

  private promptLines(width: number): string[] {
    if (this.prompt.kind === "delete")
      return [truncateToWidth(style.yellow(`Delete "${this.labelOf(this.prompt.session)}" for good? y/n`), width)];
    if (this.prompt.kind === "rename")
      return [style.bold("New name (Enter save · Esc cancel):"), ...this.prompt.input.render(width)];
    return [];
  }

  private finish(path: string | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.options.onDone(path);
  }
}
