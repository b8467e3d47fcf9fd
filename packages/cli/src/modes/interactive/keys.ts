import { defaultKeybindings, type KeyAction, type Keybindings, matchesAction } from "./keybindings.js";
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
  /** Ctrl+P / Shift+Ctrl+P: the next or previous model of the cycle list. */
  cycleModel(direction: 1 | -1): void;
  /** Ctrl+L: the model picker. */
  selectModel(): void;
  /** Alt+T: the next thinking level. */
  cycleThinking(): void;
};

/** Second Ctrl+C within this window exits. */
const DOUBLE_PRESS_MS = 1500;

/**
 * Keys that work everywhere except inside a dialog (by default; `bindings` from
 * keybindings.json may move them): Esc aborts a run, Alt+Enter queues a follow-up, Ctrl+C
 * clears the editor or (twice) exits, Ctrl+D on an empty editor exits, Ctrl+O expands tool
 * output and subagent lines, Ctrl+T shows thinking, Shift+Tab cycles permission modes, Ctrl+P / Shift+Ctrl+P cycle models, Ctrl+L picks one, Alt+T
 * cycles the thinking level. Everything else goes to the editor.
 */
export function installKeyHandlers(
  layout: Layout,
  actions: KeyActions,
  bindings: Keybindings = defaultKeybindings(),
): () => void {
  let lastCtrlC = 0;
  const matchesKey = (data: string, action: KeyAction) => matchesAction(bindings, data, action);
  return layout.tui.addInputListener((data) => {
    if (layout.dialogOpen) return undefined;
    const { editor } = layout;
    const quick = quickSwitch(data, actions, matchesKey);
    if (quick) return quick;
    if (matchesKey(data, "abort") && actions.isRunning() && !editor.isShowingAutocomplete()) {
      actions.abort();
      return { consume: true };
    }
    if (matchesKey(data, "followUp") && actions.isRunning()) {
      const text = editor.getExpandedText().trim();
      if (text) {
        editor.addToHistory(text);
        editor.setText("");
        actions.followUp(text);
      }
      return { consume: true };
    }
    if (matchesKey(data, "clear")) {
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
    if (matchesKey(data, "exit") && editor.getText() === "") {
      actions.exit();
      return { consume: true };
    }
    if (matchesKey(data, "cyclePermissionMode") && actions.cyclePermissionMode) {
      actions.cyclePermissionMode();
      return { consume: true };
    }
    if (matchesKey(data, "expandTools")) {
      layout.chat.toggleExpanded();
      layout.subagents.toggleExpanded();
      layout.render();
      return { consume: true };
    }
    if (matchesKey(data, "toggleThinking")) {
      layout.chat.toggleThinking();
      layout.render();
      return { consume: true };
    }
    return undefined;
  });
}

function quickSwitch(
  data: string,
  actions: KeyActions,
  matchesKey: (data: string, action: KeyAction) => boolean,
): { consume: true } | undefined {
  if (matchesKey(data, "cycleModelForward")) actions.cycleModel(1);
  else if (matchesKey(data, "cycleModelBackward")) actions.cycleModel(-1);
  else if (matchesKey(data, "selectModel")) actions.selectModel();
  else if (matchesKey(data, "cycleThinkingLevel")) actions.cycleThinking();
  else return undefined;
  return { consume: true };
}
