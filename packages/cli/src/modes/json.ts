import type { Writable } from "node:stream";
import type { ImageContent } from "@gyre/ai";
import type { AgentSession } from "../core/agent-session.js";
import { writeJsonLine } from "./rpc/jsonl.js";
import { describeRunFailure } from "./run-outcome.js";

/**
 * JSON mode: the session header first, then every agent and harness event as one JSON line,
 * written as it happens. Events carry deltas, not snapshots, so output stays linear in size.
 */
export async function runJsonMode(options: {
  session: AgentSession;
  prompt: string;
  images?: ImageContent[];
  stdout: Writable;
  stderr: Writable;
}): Promise<number> {
  const { session, stdout } = options;
  writeJsonLine(stdout, session.session.header);
  const unsubscribe = session.subscribe((event) => writeJsonLine(stdout, event));
  try {
    const result = await session.prompt(options.prompt, options.images ?? []);
    const failure = describeRunFailure(session, result.reason);
    if (failure) options.stderr.write(`gyre: ${failure}\n`);
    return failure ? 1 : 0;
  } finally {
    unsubscribe();
  }
}
