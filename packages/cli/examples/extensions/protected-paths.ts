/**
 * Protected paths: the agent may not write, edit or read `.env` files or anything in `.git/`,
 * nor touch them through bash. Blocking needs no question, so it works the same in every mode.
 *
 *   gyre -e packages/cli/examples/extensions/protected-paths.ts
 */
import type { ExtensionAPI } from "../../src/core/extensions/types.js";

const protectedPath = /(^|[/\\])(\.env(\.[\w.-]+)?|\.git)([/\\]|$)/;

export default function protectedPaths(api: ExtensionAPI): void {
  api.on("tool_call", (event) => {
    const { toolName, args } = event;
    if (["read", "write", "edit", "ls", "grep", "find"].includes(toolName)) {
      const path = String(args.path ?? "");
      if (protectedPath.test(path)) {
        return { block: true, reason: `${path} is protected (.env files and .git/ are off limits); leave it alone.` };
      }
    }
    if (toolName === "bash") {
      const command = String(args.command ?? "");
      if (command.split(/\s+/).some((word) => protectedPath.test(word.replace(/^['"]|['"]$/g, "")))) {
        return {
          block: true,
          reason: "The command touches a protected path (.env files or .git/); do it another way.",
        };
      }
    }
    return undefined;
  });
}
