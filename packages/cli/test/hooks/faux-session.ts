import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Context } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { type CreateAgentSessionOptions, createAgentSession, type UserInterface } from "../../src/index.js";
import type { TempDirs } from "../sdk/temp-dirs.js";

/** A session of `dirs` on a faux model answering `responses`, with a bare PATH and HOME (the hooks' shell needs PATH). */
export async function startFauxSession(
  dirs: TempDirs,
  responses: FauxResponse[],
  options: Omit<CreateAgentSessionOptions, "cwd" | "gyreHome" | "model" | "env"> = {},
) {
  const faux = createFauxModel(responses);
  const created = await createAgentSession({
    ...options,
    cwd: dirs.cwd,
    gyreHome: dirs.home,
    model: faux.model,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home },
  });
  return { ...created, faux };
}

/** A person at the approval question who always answers `decision`, and whose questions (the bash commands) are kept in `asked`. */
export function answeringUser(decision: "allow" | "deny", asked: string[]): UserInterface {
  return {
    interactive: true,
    confirm: async () => decision === "allow",
    select: async () => undefined,
    input: async () => undefined,
    notify: () => {},
    approve: async (request) => {
      asked.push(String(request.args.command));
      return { decision };
    },
  };
}

/** Writes `text` to `path`, making its folders. */
export async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** The text of each tool result the model saw, in order. */
export const toolResultTexts = (context: Context | undefined): string[] =>
  (context?.messages ?? [])
    .filter((message) => message.role === "toolResult")
    .map((message) => message.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
