/**
 * Starting a background shell on the host (sandbox off, or an approved escalation) so that it
 * cannot outlive gyre. `setpriv --pdeathsig` only covers the shell itself, and a dev server's
 * children would run on as orphans; so a small `/bin/sh` guard leads the process group: it runs
 * the command in the background of its own group and blocks reading a pipe from gyre. When gyre
 * closes that pipe, or dies (kill -9 included: the kernel closes it), the read returns and the
 * guard kills its whole group. The command's exit status comes back on a fourth pipe, since the
 * process gyre spawned is the guard, which stays until the group is ended.
 */
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { terminateProcessGroup } from "./process-group.js";
import type { LaunchedCommand, Launcher } from "./run-command.js";

/**
 * `$0` is the shell, `$1` the command. The command gets neither gyre's pipe (stdin from
 * /dev/null) nor the status pipe (fd 3 closed), so only the guard's subshell can report, once.
 */
const GUARD_SCRIPT = [
  '( "$0" -c "$1" 3>&- </dev/null; echo "$?" >&3 ) &',
  "exec 3>&-",
  "read -r _ || :",
  "kill -KILL 0",
].join("\n");

/** Runs `shell -c command` under the guard, in a new process group led by the guard. */
export const launchInBackgroundOnHost: Launcher = (request) => {
  const child = spawn("/bin/sh", ["-c", GUARD_SCRIPT, request.shell, request.command], {
    cwd: request.cwd,
    env: request.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  // The guard may be gone (killed with its group) when gyre writes or ends the pipe.
  child.stdin?.on("error", () => undefined);
  const status = child.stdio[3] as Readable | null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    let report = "";
    child.once("error", reject);
    status?.setEncoding("utf8");
    status?.on("data", (chunk: string) => {
      report += chunk;
    });
    // No number before the pipe closed: the subshell was killed with its group before the command ended.
    status?.once("close", () => {
      const code = /^(\d+)\n/.exec(report);
      resolve(code ? { code: Number(code[1]), signal: null } : { code: null, signal: "SIGTERM" });
    });
  });
  const release = () => {
    if (child.stdin?.writable) child.stdin.end();
  };
  const launched: LaunchedCommand = {
    streams: [child.stdout, child.stderr].filter((stream): stream is Readable => stream !== null),
    exited,
    terminate: async (graceMs) => {
      if (child.pid === undefined) return { signal: "SIGTERM", survivors: false };
      const ended = await terminateProcessGroup(child.pid, graceMs);
      release();
      return ended;
    },
    release,
  };
  return launched;
};
