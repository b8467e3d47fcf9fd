import { access } from "node:fs/promises";
import { join } from "node:path";
import type { SlashCommand } from "./types.js";

/**
 * The built-in prompt of /init. It asks for facts a future session cannot guess quickly (how
 * to build, test and lint, where things live, the house rules) and for nothing generic.
 */
export function initPrompt(options: { exists: boolean; focus: string }): string {
  const target = options.exists
    ? "AGENTS.md already exists: read it first, keep what is still true, correct what is not, and add what is missing."
    : "Create AGENTS.md in the repository root.";
  return [
    "Write an AGENTS.md for this repository: the instructions a coding agent reads before it starts work here.",
    target,
    "First look at the repository: its top-level files and folders, the package or build manifests (package.json, " +
      "pyproject.toml, Cargo.toml, go.mod, Makefile…), the CI configuration, the README and any existing contributor docs.",
    "Then write, concisely and only from what you found:",
    "- what the project is, in one or two sentences;",
    "- the exact commands to install, build, run the tests (a single test too), lint and format;",
    "- the layout: where the main code, tests and docs live, and the boundaries between parts;",
    "- the conventions the code follows (style, naming, error handling, how tests are written) and anything a newcomer would get wrong.",
    "Leave out generic advice that holds for every project. Keep it under about 150 lines. When you are done, say in one sentence what you wrote.",
    ...(options.focus ? [`The user adds: ${options.focus}`] : []),
  ].join("\n");
}

/** /init [focus]: asks the model to look at the repository and write (or update) AGENTS.md. */
export const initCommand: SlashCommand = {
  name: "init",
  description: "Have the agent write AGENTS.md from a look at the repository",
  argumentHint: "[what to stress]",
  run: async (args, context) => {
    const exists = await access(join(context.session.info.cwd, "AGENTS.md")).then(
      () => true,
      () => false,
    );
    context.prompt(initPrompt({ exists, focus: args.trim() }));
  },
};
