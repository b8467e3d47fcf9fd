import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A detached tmux session running one command, for end-to-end tests of the terminal UI. */
export type TmuxSession = {
  name: string;
  capture(): Promise<string>;
  /** The screen with its colour escapes (`capture-pane -e`). */
  captureStyled(): Promise<string>;
  /** tmux key names ("Enter", "Escape", "C-c") or literal text with `literal: true`. */
  send(keys: string[], options?: { literal?: boolean }): Promise<void>;
  type(text: string): Promise<void>;
  /** Pastes `text` as a terminal paste (bracketed when the program asked for it). */
  paste(text: string): Promise<void>;
  /** Polls the screen until `predicate` holds; throws with the last screen after `timeoutMs`. */
  waitFor(predicate: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Polls until the command has exited; resolves with its exit status (undefined when tmux cannot tell). */
  waitForExit(timeoutMs?: number): Promise<number | undefined>;
  kill(): Promise<void>;
};

let counter = 0;

/**
 * Runs `tmux new-session`. When the previous test killed the server's last session, the server
 * is still exiting and a new client can attach to it just before it goes ("server exited
 * unexpectedly"); that attempt created nothing, so it is retried until a fresh server answers.
 */
async function startServerSession(args: string[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      await run("tmux", args);
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? "");
      if (!/server exited unexpectedly|lost server/.test(stderr) || Date.now() > deadline) throw error;
      // A poll interval, not a wait for a condition: the next attempt checks again.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Starts `command` in a new detached tmux session of `width`×`height` cells. */
export async function startTmux(options: {
  command: string;
  cwd: string;
  width?: number;
  height?: number;
}): Promise<TmuxSession> {
  const name = `gyre-test-${process.pid}-${Date.now().toString(36)}-${counter++}`;
  await startServerSession([
    "new-session",
    "-d",
    "-s",
    name,
    "-x",
    String(options.width ?? 100),
    "-y",
    String(options.height ?? 30),
    "-c",
    options.cwd,
    options.command,
  ]);
  // Keep the pane after the command exits, so a crash stays readable in the failure message.
  await run("tmux", ["set-option", "-t", name, "remain-on-exit", "on"]);
  const capture = async () => (await run("tmux", ["capture-pane", "-p", "-t", name])).stdout;
  const session: TmuxSession = {
    name,
    capture,
    captureStyled: async () => (await run("tmux", ["capture-pane", "-p", "-e", "-t", name])).stdout,
    send: async (keys, sendOptions = {}) => {
      await run("tmux", ["send-keys", "-t", name, ...(sendOptions.literal ? ["-l"] : []), ...keys]);
    },
    type: (text) => session.send([text], { literal: true }),
    paste: async (text) => {
      await run("tmux", ["set-buffer", "-b", name, "--", text]);
      await run("tmux", ["paste-buffer", "-p", "-d", "-b", name, "-t", name]);
    },
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const test =
        typeof predicate === "function"
          ? predicate
          : typeof predicate === "string"
            ? (screen: string) => screen.includes(predicate)
            : (screen: string) => predicate.test(screen);
      const deadline = Date.now() + timeoutMs;
      let screen = "";
      while (Date.now() < deadline) {
        screen = await capture();
        if (test(screen)) return screen;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`Timed out waiting for ${String(predicate)}; the screen was:\n${screen}`);
    },
    waitForExit: async (timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      let unknownSince: number | undefined;
      while (Date.now() < deadline) {
        const { stdout } = await run("tmux", [
          "display-message",
          "-p",
          "-t",
          name,
          "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}",
        ]);
        const [dead, status, signal] = stdout.trim().split(" ");
        // Right after the command dies tmux may not know the status yet: poll on a little.
        if (dead === "1" && status) return Number(status);
        if (dead === "1" && signal) throw new Error(`The command was killed by signal ${signal}.`);
        if (dead === "1") unknownSince ??= Date.now();
        if (unknownSince !== undefined && Date.now() - unknownSince > 1_000) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`Timed out waiting for the command to exit; the screen was:\n${await capture()}`);
    },
    kill: async () => {
      await run("tmux", ["kill-session", "-t", name]).catch(() => {});
    },
  };
  return session;
}
