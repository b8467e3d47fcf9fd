import { matchesKey } from "@mariozechner/pi-tui";
import type { Layout } from "./layout.js";

/** What the global keys do; the controller supplies the actions. */
export type KeyActions = {
  isRunning(): boolean;
  abort(): void;
  followUp(text: string): void;
  exit(): void;
  notify(text: string): void;
  /** Shift+Tab: the next permission mode (default → plan → default). */
  cyclePermissionMode?(): void;
};

/** Second Ctrl+C within this window exits. */
const DOUBLE_PRESS_MS = 1500;

/**
 * Keys that work everywhere except inside a dialog: Esc aborts a run, Alt+Enter queues a
 * follow-up, Ctrl+C clears the editor or (twice) exits, Ctrl+D on an empty editor exits, Ctrl+O
 * expands tool output and subagent lines, Ctrl+T shows thinking. Everything else goes to the editor.
 */
export function installKeyHandlers(layout: Layout, actions: KeyActions): () => void {
  let lastCtrlC = 0;
  return layout.tui.addInputListener((data) => {
    if (layout.dialogOpen) return undefined;
    const { editor } = layout;
    if (matchesKey(data, "escape") && actions.isRunning() && !editor.isShowingAutocomplete()) {
      actions.abort();
      return { consume: true };
    }
    if (matchesKey(data, "alt+enter") && actions.isRunning()) {
      const text = editor.getExpandedText().trim();
      if (text) {
        editor.addToHistory(text);
        editor.setText("");
        actions.followUp(text);
      }
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+c")) {
      // Only presses on an empty editor count toward the exit: "clear, type, clear" must not quit.
      if (editor.getText() !== "") {
        editor.setText("");
        lastCtrlC = 0;
        layout.render();
        return { consume: true };
      }
      const now = Date.now();
      if (now - lastCtrlC < DOUBLE_PRESS_MS) actions.exit();
      else actions.notify("Press Ctrl+C again to exit.");
      lastCtrlC = now;
      layout.render();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && editor.getText() === "") {
      actions.exit();
      return { consume: true };
    }
    if (matchesKey(data, "shift+tab") && actions.cyclePermissionMode) {
      actions.cyclePermissionMode();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      layout.chat.toggleExpanded();
      layout.subagents.toggleExpanded();
      layout.render();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+t")) {
      layout.chat.toggleThinking();
      layout.render();
      return { consume: true };
    }
    return undefined;
  });
}
