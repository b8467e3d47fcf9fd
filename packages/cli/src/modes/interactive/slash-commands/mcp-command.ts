import { describeServerState } from "../../../core/mcp/describe-status.js";
import { sanitizeText } from "../sanitize-text.js";
import { style } from "../theme.js";
import type { SlashCommand } from "./types.js";

/** How many stderr lines each server shows; `/mcp <name>` shows the whole kept tail. */
const tailLines = 5;

/** /mcp [name]: every MCP server's state (connecting, ready with N tools, failed and why) and its stderr tail. */
export const mcpCommand: SlashCommand = {
  name: "mcp",
  description: "Show MCP servers: state, tools, stderr tail",
  argumentHint: "[server]",
  allowWhileRunning: true,
  run: (args, context) => {
    const all = context.session.mcpStatuses();
    if (all.length === 0) {
      context.notify("No MCP servers configured; add one with gyre mcp add (see gyre mcp --help).");
      return;
    }
    const wanted = args.trim();
    const statuses = all.filter((status) => !wanted || status.name === wanted);
    if (statuses.length === 0) {
      const names = all.map((status) => status.name);
      context.notify(`No MCP server "${wanted}"; configured: ${names.join(", ")}.`, "warning");
      return;
    }
    const lines: string[] = [];
    for (const status of statuses) {
      // Server names, errors and stderr come from outside: no terminal escapes get through.
      const state = sanitizeText(describeServerState(status));
      const coloured =
        status.state === "connected" ? style.green(state) : status.state === "connecting" ? state : style.red(state);
      lines.push(
        `${style.cyan(sanitizeText(status.name))}  ${coloured}  ${style.gray(`${status.transport}, ${status.scope}`)}`,
      );
      const tail = wanted ? status.stderrTail : status.stderrTail.slice(-tailLines);
      if (tail.length > 0) {
        lines.push(style.gray("  stderr:"));
        for (const line of tail) lines.push(style.gray(`    ${sanitizeText(line)}`));
      }
    }
    context.print(lines.join("\n"));
  },
};
