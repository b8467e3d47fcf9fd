import type { Terminal } from "@mariozechner/pi-tui";
import { ProcessTerminal } from "@mariozechner/pi-tui";
import type { AgentSession } from "../../core/agent-session.js";
import type { UserInterface } from "../../core/user-interface.js";
import { listAvailableModels, resolveModelScope } from "../model-cycle.js";
import { InteractiveController } from "./interactive-controller.js";
import { applyEditorKeybindings, loadKeybindings } from "./keybindings.js";
import { Layout } from "./layout.js";
import { setPalette } from "./palette.js";
import { createTerminalUserInterface } from "./terminal-user-interface.js";
import { loadTheme } from "./theme-file.js";

export type InteractiveModeOptions = {
  /** Sent as the first prompt once the UI is up (`gyre "fix the test"`). */
  initialPrompt?: string;
  /** `--resume`: open the session picker first. */
  resume?: boolean;
  version: string;
  /** A test terminal; default the process's own. */
  terminal?: Terminal;
  /** Where the resume hint goes after the screen closes; default stdout. */
  output?: NodeJS.WritableStream;
  /** `--models`: the patterns of the Ctrl+P cycle list; one that matches nothing is bad usage. */
  models?: readonly string[];
  /** Receives the terminal `UserInterface` once the screen exists (extensions, trust prompts). */
  onUserInterface?: (ui: UserInterface) => void;
};

/**
 * The interactive mode: a full-screen conversation in the terminal driven by the same
 * `AgentSession` as the other modes. Resolves with the exit code when the user quits; the caller
 * disposes the session (which persists it).
 */
export async function runInteractiveMode(session: AgentSession, options: InteractiveModeOptions): Promise<number> {
  const { info } = session;
  const model = info.startupModel;
  // Before the screen opens, so a bad --models pattern is a plain one-line error.
  const modelScope = options.models ? resolveModelScope(options.models, listAvailableModels(model)) : undefined;
  const keys = await loadKeybindings(info.gyreHome);
  applyEditorKeybindings(keys.bindings);
  const theme = await loadTheme(info.settings.theme, info.gyreHome, info.themeFiles);
  setPalette(theme.palette);
  if (theme.problem) info.notices.push({ level: "warning", text: theme.problem });
  const layout = new Layout(options.terminal ?? new ProcessTerminal(), {
    version: options.version,
    model: `${model.provider}/${model.id}`,
    cwd: info.cwd,
    home: process.env.HOME,
    contextFiles: info.contextFiles,
    extensions: info.extensionPaths,
  });
  options.onUserInterface?.(createTerminalUserInterface(layout));
  for (const problem of keys.problems) info.notices.push({ level: "warning", text: problem });
  const controller = new InteractiveController(session, layout, {
    ...(modelScope ? { modelScope } : {}),
    keybindings: keys.bindings,
  });
  const code = await controller.start({
    ...(options.initialPrompt !== undefined ? { initialPrompt: options.initialPrompt } : {}),
    ...(options.resume ? { resume: true } : {}),
  });
  // Under the last screen, once the UI has let the terminal go: how to come back.
  if (session.messages.length > 0) (options.output ?? process.stdout).write(`${resumeHint(session.state.sessionId)}\n`);
  return code;
}

/** The line printed on exit: the command that continues this session. */
export function resumeHint(sessionId: string): string {
  return `Resume this session with: gyre --session ${sessionId}`;
}
