import { join } from "node:path";
import { readSettingsObject, type SettingsChange, updateSettingsFile } from "../../../core/config/settings-writer.js";
import { setPalette } from "../palette.js";
import { SettingsEditor } from "../pickers/settings-editor.js";
import { createSettingRows } from "../pickers/settings-rows.js";
import { style } from "../theme.js";
import { listThemes, loadTheme } from "../theme-file.js";
import type { CommandContext, SlashCommand } from "./types.js";

/** /settings: an editor of the common user settings; `/settings show` prints the effective ones. */
export const settingsCommand: SlashCommand = {
  name: "settings",
  description: "Edit the settings (/settings show prints them)",
  argumentHint: "[show]",
  allowWhileRunning: true,
  run: async (args, context) => {
    if (args.trim() === "show") return showSettings(context);
    if (args.trim() !== "")
      return context.notify(`Unknown /settings argument "${args.trim()}"; use /settings or /settings show.`, "error");
    const { layout } = context;
    const info = context.session.info;
    const file = join(info.gyreHome, "settings.json");
    const current = await readSettingsObject(file);
    if (!current.ok) return context.notify(current.error, "error");
    const rows = createSettingRows(await listThemes(info.gyreHome, info.themeFiles));
    const save = async (changes: SettingsChange[]) => {
      const result = await updateSettingsFile(file, changes);
      if (!result.ok) return result;
      // The run goes on with what it started with, except the theme, which this screen shows at once.
      if (changes.some((change) => change.key === "theme")) {
        const theme = await loadTheme(result.settings.theme as string | undefined, info.gyreHome, info.themeFiles);
        setPalette(theme.palette);
        info.settings.theme = theme.name;
        layout.tui.invalidate();
        layout.tui.requestRender(true);
        if (theme.problem) return { ...result, note: theme.problem };
      }
      return result;
    };
    await layout.ask<undefined>(
      (done) =>
        new SettingsEditor({
          title: `Settings (${file})`,
          rows,
          settings: current.settings,
          save,
          requestRender: () => layout.render(),
          onDone: () => done(undefined),
        }),
    );
  },
};

/** The effective settings (user and, when trusted, project), model and paths. */
function showSettings(context: CommandContext): void {
  const { session } = context;
  const info = session.info;
  const state = session.state;
  const lines = [
    `${style.gray("model".padEnd(16))}${state.model.provider}/${state.model.id} (${state.model.baseUrl})`,
    `${style.gray("thinking".padEnd(16))}${state.thinkingLevel}`,
    `${style.gray("tools".padEnd(16))}${state.toolNames.join(", ") || "none"}`,
    `${style.gray("project trusted".padEnd(16))}${info.trusted ? "yes" : "no"}`,
    `${style.gray("gyre home".padEnd(16))}${info.gyreHome}`,
    `${style.gray("session file".padEnd(16))}${state.sessionFile ?? "(in memory)"}`,
    style.gray("settings.json (user, then project; project wins):"),
    ...JSON.stringify(info.settings, null, 2).split("\n"),
  ];
  context.print(lines.join("\n"));
}
