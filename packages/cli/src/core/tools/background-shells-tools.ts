/**
 * `bash_output` and `kill_shell`: the model's handles on the shells `bash` started with
 * `run_in_background` (docs/tools.md, "Background shells"). Offered whenever `bash` is.
 */
import type { AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { redactUrlPasswords } from "../session/redact-secrets.js";
import { type BackgroundShells, describeState, type ShellInfo } from "./background-shells.js";

const bashOutputParameters = Type.Object({
  id: Type.String({ description: 'The shell id bash returned, e.g. "shell-1".' }),
  filter: Type.Optional(
    Type.String({
      description:
        "A JavaScript regular expression: only new lines matching it are shown (the others are still consumed).",
    }),
  ),
});

const killShellParameters = Type.Object({
  id: Type.String({ description: 'The shell id bash returned, e.g. "shell-1".' }),
});

/** Creates `bash_output` over the session's shells. */
export function createBashOutputTool(shells: BackgroundShells): AgentTool<typeof bashOutputParameters, ShellInfo> {
  return {
    name: "bash_output",
    label: "Shell output",
    description:
      "Read the output a background shell (started by bash with run_in_background: true) printed since your last " +
      "bash_output call for it, and whether it is running, exited with code N, or was killed. Returns at once; it " +
      "does not wait. Use it to check on a dev server, watcher or long build; pass filter (a regular expression) " +
      "to see only matching lines, e.g. errors.",
    parameters: bashOutputParameters,
    async execute(args) {
      // A connection string's password is never needed to do the task; it would be kept in the session.
      const text = redactUrlPasswords(await shells.read(args.id, args.filter));
      const info = shells.list().find((shell) => shell.id === args.id.trim()) as ShellInfo;
      return { content: [{ type: "text", text }], details: info };
    },
  };
}

/** Creates `kill_shell` over the session's shells. */
export function createKillShellTool(shells: BackgroundShells): AgentTool<typeof killShellParameters, ShellInfo> {
  return {
    name: "kill_shell",
    label: "Kill shell",
    description:
      "Stop a background shell started by bash with run_in_background: true, with every process it started " +
      "(SIGTERM, then SIGKILL if it lingers). Use it when a server or watcher is no longer needed or must be " +
      "restarted; bash_output still shows what it printed before it stopped.",
    parameters: killShellParameters,
    async execute(args) {
      const before = shells.list().find((shell) => shell.id === args.id.trim());
      const info = await shells.kill(args.id);
      const text =
        before?.state === "running"
          ? `Stopped background shell ${info.id} (${info.command}): ${describeState(info, Date.now())}.`
          : `Background shell ${info.id} had already ended: ${describeState(info, Date.now())}.`;
      return { content: [{ type: "text", text }], details: info };
    },
  };
}
