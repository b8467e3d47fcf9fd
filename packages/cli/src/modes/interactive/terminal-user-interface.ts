import type { UserInterface } from "../../core/user-interface.js";
import type { NoticeLevel } from "./components/notice-view.js";
import type { Layout } from "./layout.js";
import { InputDialog, SelectDialog } from "./pickers/select-dialog.js";

/**
 * The `UserInterface` the interactive mode gives to core code (extensions, the trust prompt):
 * questions take the editor's place one at a time; notices go into the conversation; statuses
 * (`ui.setStatus`) into a line under the footer.
 */
export function createTerminalUserInterface(
  layout: Layout,
): UserInterface & { setStatus(key: string, text: string | undefined): void } {
  const notify = (message: string, level: NoticeLevel = "info") => {
    layout.chat.addNotice(message, level);
    layout.render();
  };
  return {
    interactive: true,
    confirm: async ({ title, message, signal }) => {
      const fullTitle = message ? `${title} — ${message}` : title;
      const answer = await layout.ask<string>(
        (done) =>
          new SelectDialog({
            title: fullTitle,
            items: [
              { value: "yes", label: "Yes" },
              { value: "no", label: "No" },
            ],
            onDone: done,
          }),
        signal,
      );
      return answer === "yes";
    },
    select: ({ title, options, signal }) =>
      layout.ask<string>(
        (done) =>
          new SelectDialog({ title, items: options.map((option) => ({ value: option, label: option })), onDone: done }),
        signal,
      ),
    input: ({ title, placeholder, signal }) =>
      layout.ask<string>((done) => new InputDialog(placeholder ? `${title} (${placeholder})` : title, done), signal),
    notify,
    setStatus: (key, text) => {
      layout.footer.setStatus(key, text);
      layout.render();
    },
  };
}
