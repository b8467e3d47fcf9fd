import { type Component, Container, type Terminal, TUI } from "@mariozechner/pi-tui";
import { ChatView } from "./chat-view.js";
import { FooterView } from "./components/footer-view.js";
import { type HeaderInfo, HeaderView } from "./components/header-view.js";
import { PendingQueueView } from "./components/pending-queue-view.js";
import { PromptEditor } from "./components/prompt-editor.js";
import { StatusLineView } from "./components/status-line-view.js";
import { SubagentLinesView } from "./components/subagent-lines-view.js";
import { TodoPanelView } from "./components/todo-panel-view.js";
import { FrameBudget } from "./frame-budget.js";
import { editorTheme } from "./theme.js";

/**
 * While an answer streams, at most one frame per this many ms (20 a second). Every frame rewrites
 * the lines under the answer (status, editor, footer: ~1.2 KB), so the frame rate sets most of
 * the bytes a streamed answer costs; keys still draw at once.
 */
const STREAM_FRAME_MS = 50;

/**
 * The screen from top to bottom: header, conversation, running subagents, pending messages, the
 * pinned todo list, status line, editor (or a dialog in its place), footer. Everything above the editor only grows while the agent
 * works, which keeps pi-tui's diff at the bottom of the screen.
 */
export class Layout {
  readonly tui: TUI;
  readonly header: HeaderView;
  readonly chat = new ChatView();
  readonly subagents = new SubagentLinesView();
  readonly pending = new PendingQueueView();
  readonly todos = new TodoPanelView();
  readonly status: StatusLineView;
  readonly editor: PromptEditor;
  readonly footer = new FooterView();
  private readonly editorSlot = new Container();
  private dialogQueue: Promise<unknown> = Promise.resolve();
  private readonly frames: FrameBudget;

  constructor(terminal: Terminal, headerInfo: HeaderInfo) {
    this.tui = new TUI(terminal);
    this.frames = new FrameBudget(() => this.tui.requestRender(), STREAM_FRAME_MS);
    // A shrinking screen must not trigger a full redraw of a long history.
    this.tui.setClearOnShrink(false);
    this.header = new HeaderView(headerInfo);
    // The spinner's ticks share the streamed frames instead of adding their own.
    this.status = new StatusLineView(() => this.frames.soon());
    this.editor = new PromptEditor(this.tui, editorTheme, { paddingX: 1 });
    this.editorSlot.addChild(this.editor);
    for (const child of [
      this.header,
      this.chat,
      this.subagents,
      this.pending,
      this.todos,
      this.status,
      this.editorSlot,
      this.footer,
    ])
      this.tui.addChild(child);
    this.tui.setFocus(this.editor);
  }

  /** Whether a dialog holds the editor's place. */
  get dialogOpen(): boolean {
    return this.editorSlot.children[0] !== this.editor;
  }

  /** A frame now (with any streamed update still waiting for its frame). */
  render(): void {
    this.frames.now();
  }

  /** A frame for a streamed delta: coalesced, at most one per `STREAM_FRAME_MS`. */
  renderStreamed(): void {
    this.frames.soon();
  }

  /** Drops a waiting streamed frame; the screen is going away. */
  stopRendering(): void {
    this.frames.cancel();
  }

  /**
   * Puts a dialog in the editor's place until it calls `done`; one dialog at a time (later ones
   * wait). Aborting `signal` closes it with undefined.
   */
  ask<T>(create: (done: (value: T | undefined) => void) => Component, signal?: AbortSignal): Promise<T | undefined> {
    const run = () =>
      new Promise<T | undefined>((resolve) => {
        if (signal?.aborted) return resolve(undefined);
        let settled = false;
        const done = (value: T | undefined) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener("abort", onAbort);
          this.showInSlot(this.editor);
          resolve(value);
        };
        const onAbort = () => done(undefined);
        signal?.addEventListener("abort", onAbort, { once: true });
        this.showInSlot(create(done));
      });
    const result = this.dialogQueue.then(run, run);
    this.dialogQueue = result;
    return result;
  }

  private showInSlot(component: Component): void {
    this.editorSlot.clear();
    this.editorSlot.addChild(component);
    this.tui.setFocus(component);
    this.tui.requestRender();
  }
}
