/**
 * `gyre --session <id> --rewind <entryId> [--restore code|conversation|both] [--force]`: rewinds
 * once for scripts and prints the outcome as one JSON line. Exit 0 when it rewound (conflicts,
 * kept unless --force, are listed), 2 for an entry that is not in the session.
 * `--rewind list` prints the entries it can go back to instead, one JSON line each, newest first.
 */
import type { Writable } from "node:stream";
import { GyreError } from "@gyre/ai";
import type { AgentSession } from "../core/agent-session.js";

export async function runRewindMode(
  session: AgentSession,
  options: {
    entryId: string;
    restore: "both" | "code" | "conversation";
    force: boolean;
    stdout: Writable;
    stderr: Writable;
  },
): Promise<number> {
  if (options.entryId === "list") {
    for (const point of session.rewindTargets())
      options.stdout.write(`${JSON.stringify({ type: "rewind_point", ...point })}\n`);
    return 0;
  }
  try {
    const result = await session.submit({
      type: "rewind",
      entryId: options.entryId,
      restore: options.restore,
      force: options.force,
    });
    options.stdout.write(`${JSON.stringify({ type: "rewind", sessionId: session.state.sessionId, ...result })}\n`);
    if (result.conflicts.length > 0 && !options.force)
      options.stderr.write(
        `gyre: kept ${result.conflicts.length} file(s) changed outside gyre since the checkpoint (${result.conflicts.join(", ")}); add --force to restore them too.\n`,
      );
    if (result.notice) options.stderr.write(`gyre: ${result.notice}\n`);
    return 0;
  } catch (error) {
    const usage = error instanceof GyreError && error.code === "usage";
    const hint = usage ? " `--rewind list` shows the entries this session can go back to." : "";
    options.stderr.write(`gyre: ${(error as Error).message}${hint}\n`);
    return usage ? 2 : 1;
  }
}
