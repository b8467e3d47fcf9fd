/**
 * A status-line counter: how many turns and tool calls this session has had. The count is kept
 * in the session (`custom` entries), so `gyre -c` continues it. In the terminal it is a status
 * line; over RPC a `status` event; in print mode a notice on stderr with --verbose.
 *
 *   gyre -e packages/cli/examples/extensions/status-counter.ts
 */
import type { ExtensionAPI } from "../../src/core/extensions/types.js";

type Counts = { turns: number; toolCalls: number };

export default function statusCounter(api: ExtensionAPI): void {
  let counts: Counts = { turns: 0, toolCalls: 0 };
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  const show = () =>
    api.ui.setStatus("activity", `${plural(counts.turns, "turn")}, ${plural(counts.toolCalls, "tool call")}`);

  api.on("session_start", () => {
    const saved = api.getEntries("status-counter").at(-1)?.data as Counts | undefined;
    if (saved) counts = { ...saved };
  });
  api.on("turn_end", (event) => {
    counts.turns++;
    counts.toolCalls += event.toolResults.length;
    show();
  });
  api.on("agent_end", () => {
    api.appendEntry("status-counter", counts);
  });
}
