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
  const current = () => target ?? early;
  return {
    ui: {
      get interactive() {
        return current().interactive;
      },
      confirm: (request) => current().confirm(request),
      select: (request) => current().select(request),
      input: (request) => current().input(request),
      notify: (message, level) => current().notify(message, level),
      setStatus: (key, text) => {
        if (target?.setStatus) target.setStatus(key, text);
        else if (text !== undefined) current().notify(`${key}: ${text}`, "info");
      },
    },
    attach: (ui) => {
      target = ui;
    },
  };
}
