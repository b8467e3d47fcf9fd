import type { SelectItem } from "@mariozechner/pi-tui";
import type { AgentSession } from "../../../core/agent-session.js";
import type { NoticeLevel } from "../components/notice-view.js";
import type { Keybindings } from "../keybindings.js";
import type { Layout } from "../layout.js";
import type { RuntimeCommand } from "./runtime-commands.js";

/** What a slash command may use: the session (its ops, state and info), the screen, and a few UI helpers. */
export type CommandContext = {
  session: AgentSession;
  layout: Layout;
  sessionsDir: string;
  /** Every registered command (for /help). */
  commands: readonly SlashCommand[];
  /** Extension commands, prompt templates and skills (for /help). */
  runtimeCommands: readonly RuntimeCommand[];
  /** The keys in effect, keybindings.json applied (for /help). */
  keybindings: Keybindings;
  /** A line of UI text in the conversation (sanitised, coloured by level). */
  notify(text: string, level?: NoticeLevel): void;
  /** Pre-styled output that we built ourselves (tables, help). */
  print(text: string): void;
  select(title: string, items: SelectItem[], initial?: string): Promise<string | undefined>;
  input(title: string, initial?: string): Promise<string | undefined>;
  /** Re-renders the conversation from the session (after a branch jump). */
  reloadChat(): void;
  /** Recomputes header and footer (model, thinking, name, usage). */
  refreshInfo(): void;
  setEditorText(text: string): void;
  /** Lists extension commands, templates and skills again (after /reload), for the `/` menu too. */
  refreshCommands(): void;
  /** Sends `text` as a prompt, as if typed (Esc, steering and the finish notification apply); does not wait for it. */
  prompt(text: string): void;
  exit(): void;
};

/** One slash command; each lives in its own file under slash-commands/. */
export type SlashCommand = {
  name: string;
  description: string;
  argumentHint?: string;
  /** Whether it may run while the agent works (default: no, it says to wait or press Esc). */
  allowWhileRunning?: boolean;
  run(args: string, context: CommandContext): Promise<void> | void;
};
