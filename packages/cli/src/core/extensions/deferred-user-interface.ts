import { createHeadlessUserInterface, type UserInterface } from "../user-interface.js";

/**
 * A `UserInterface` for code created before the mode's own interface exists (extensions load
 * before the interactive screen is up). Until `attach` it behaves headless (not interactive,
 * questions declined, notices to `onEarlyNotify`); afterwards it forwards everything.
 */
export function createDeferredUserInterface(onEarlyNotify?: (message: string) => void): {
  ui: UserInterface & { setStatus(key: string, text: string | undefined): void };
  attach(target: UserInterface): void;
} {
  let target: (UserInterface & { setStatus?: (key: string, text: string | undefined) => void }) | undefined;
  const early = createHeadlessUserInterface(onEarlyNotify);
  // Statuses set before an interface with a status line exists (at session_start, or while the
  // plain-line trust prompt is attached) are held and shown once one is attached.
  const earlyStatuses = new Map<string, string | undefined>();
  const earlyNotices: [string, "info" | "warning" | "error" | undefined][] = [];
  const current = () => target ?? early;
  return {
    ui: {
      get interactive() {
        return current().interactive;
      },
      confirm: (request) => current().confirm(request),
      select: (request) => current().select(request),
      input: (request) => current().input(request),
      notify: (message, level) => {
        // Printed before the screen starts, a notice would sit raw above it; the screen shows it.
        if (target && !("setStatus" in target)) earlyNotices.push([message, level]);
        else current().notify(message, level);
      },
      setStatus: (key, text) => {
        if (target?.setStatus) target.setStatus(key, text);
        else earlyStatuses.set(key, text);
      },
    },
    attach: (ui) => {
      target = ui;
      const setStatus = (ui as { setStatus?: (key: string, text: string | undefined) => void }).setStatus;
      if (!setStatus) return;
      for (const [key, text] of earlyStatuses) setStatus(key, text);
      earlyStatuses.clear();
      for (const [message, level] of earlyNotices.splice(0)) ui.notify(message, level);
    },
  };
}
