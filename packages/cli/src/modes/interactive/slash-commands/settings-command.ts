import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** /settings: the effective settings (user and, when trusted, project), model and paths. */
export const settingsCommand: SlashCommand = {
  name: "settings",
  description: "Show the effective settings",
  allowWhileRunning: true,
  run: (_args, context) => {
    const { runtime, session } = context;
    const state = session.state;
    const lines = [
      `${style.gray("model".padEnd(16))}${state.model.provider}/${state.model.id} (${state.model.baseUrl})`,
      `${style.gray("thinking".padEnd(16))}${state.thinkingLevel}`,
      `${style.gray("tools".padEnd(16))}${state.toolNames.join(", ") || "none"}`,
      `${style.gray("project trusted".padEnd(16))}${runtime.trusted ? "yes" : "no"}`,
      `${style.gray("gyre home".padEnd(16))}${runtime.gyreHome}`,
      `${style.gray("session file".padEnd(16))}${state.sessionFile ?? "(in memory)"}`,
      style.gray("settings.json (user, then project; project wins):"),
      ...JSON.stringify(runtime.settings, null, 2).split("\n"),
    ];
    context.print(lines.join("\n"));
  },
};
