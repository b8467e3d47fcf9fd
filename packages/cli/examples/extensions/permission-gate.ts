/**
 * Permission gate: asks before `rm -rf`, `git push`, and writes or edits outside `src/`.
 * Interactive: a yes/no question. RPC: a `ui_request` to the client. Print/JSON: nobody can
 * answer, so the call is refused and the model is told why.
 *
 *   gyre -e packages/cli/examples/extensions/permission-gate.ts
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { ExtensionAPI } from "../../src/core/extensions/types.js";

const dangerousCommands: { pattern: RegExp; what: string }[] = [
  { pattern: /\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|-[rR]\s+-f|-f\s+-[rR])/, what: "rm -rf" },
  { pattern: /\bgit\s+push\b/, what: "git push" },
];

export default function permissionGate(api: ExtensionAPI): void {
  api.on("tool_call", async (event, context) => {
    const question = describeRisk(event.toolName, event.args, context.cwd);
    if (!question) return undefined;
    const allowed = await context.ui.confirm({
      title: question,
      message: "The agent wants to do this. Allow it?",
      signal: context.signal,
    });
    if (allowed) return undefined;
    return { block: true, reason: `The user did not allow this: ${question.replace(/\?$/, "")}.` };
  });
}

/** The question to ask, or undefined when the call is harmless. */
function describeRisk(toolName: string, args: Record<string, unknown>, cwd: string): string | undefined {
  if (toolName === "bash") {
    const command = String(args.command ?? "");
    const risk = dangerousCommands.find((candidate) => candidate.pattern.test(command));
    return risk ? `Run "${command}" (${risk.what})?` : undefined;
  }
  if (toolName === "write" || toolName === "edit") {
    const path = String(args.path ?? "");
    const inside = relative(resolve(cwd, "src"), resolve(cwd, path));
    const inSrc = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
    return inSrc ? undefined : `${toolName === "write" ? "Write" : "Edit"} ${path}, outside src/?`;
  }
  return undefined;
}
