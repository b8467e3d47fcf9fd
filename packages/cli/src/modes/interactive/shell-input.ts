import type { AgentSession } from "../../core/agent-session.js";
import type { SessionEntry } from "../../core/session/types.js";
import type { UserShellResult } from "../../core/user-shell.js";
import type { ChatView } from "./chat-view.js";
import type { ToolCallView } from "./components/tool-call-view.js";

/** A `!cmd` (its output joins the context) or `!!cmd` (it does not) typed in the editor. */
export type ShellInput = { command: string; addToContext: boolean };

/** The shell command in the editor's text; undefined when the text does not start with `!`. */
export function parseShellInput(text: string): ShellInput | undefined {
  if (!text.startsWith("!")) return undefined;
  const addToContext = !text.startsWith("!!");
  return { command: text.slice(addToContext ? 1 : 2).trim(), addToContext };
}

/**
 * Runs a `!cmd` through the session (its sandbox, its checkpoints; Esc's `abort()` stops it) and
 * draws it in the chat as it runs: the live tail, then the capped output and how it ended.
 */
export async function runShellInput(
  input: ShellInput,
  target: { session: AgentSession; chat: ChatView; render(): void },
): Promise<UserShellResult> {
  const view = target.chat.addShellRun(input.command, input.addToContext ? "!" : "!!");
  target.render();
  const unsubscribe = target.session.subscribe((event) => {
    if (event.type !== "shell_output" || event.command !== input.command) return;
    view.setPartialResult({ content: [{ type: "text", text: event.tail }], details: undefined });
    target.render();
  });
  const result = await target.session
    .submit({ type: "shell", command: input.command, addToContext: input.addToContext })
    .finally(unsubscribe);
  showResult(view, result);
  target.render();
  return result;
}

/** A `!!cmd` kept out of the context: recorded in the session only, drawn again on resume. */
export type ShellRecord = { at: number; result: UserShellResult };

/** The `!!cmd` records (custom `user_shell` entries) among `entries`, with when each ran. */
export function shellRecordsOf(entries: readonly SessionEntry[]): ShellRecord[] {
  const records: ShellRecord[] = [];
  for (const entry of entries) {
    if (entry.type !== "custom" || entry.customType !== "user_shell") continue;
    const data = entry.data as Partial<UserShellResult> | undefined;
    // A record another version wrote differently is left out rather than drawn wrong.
    if (typeof data?.command !== "string" || typeof data.output !== "string") continue;
    records.push({ at: Date.parse(entry.timestamp), result: data as UserShellResult });
  }
  return records;
}

/** Draws a finished command's output and how it ended, live or from the session. */
export function showResult(view: ToolCallView, result: UserShellResult): void {
  view.setResult(
    {
      content: [{ type: "text", text: result.output }],
      details: {
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        aborted: result.cancelled,
      },
    },
    result.notRun === true,
  );
}

/** The status line while a `!cmd` runs. */
export function shellStatus(command: string, startedAt: number, frame: string): string {
  const seconds = Math.floor((Date.now() - startedAt) / 1000);
  return `${frame} ! ${command} (${seconds}s) · esc to interrupt`;
}
