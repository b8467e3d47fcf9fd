import { afterEach, describe, expect, it } from "vitest";
import { type RequestBody, startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

type Tmux = Awaited<ReturnType<typeof startGyre>>["tmux"];

/** Runs /shells until the list shows `pattern` (a shell that just exited may still be ending). */
async function listUntil(tmux: Tmux, pattern: RegExp): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await submit(tmux, "/shells");
    try {
      return await tmux.waitFor(pattern, 1000);
    } catch (error) {
      if (attempt === 5) throw error;
    }
  }
}

/** Starts two background shells (one stays, one exits with 5), then answers. */
function startShells({ body }: { body: RequestBody }) {
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  if (results === 0)
    return {
      toolCalls: [
        { id: "bg-1", name: "bash", arguments: { command: "sleep 300", run_in_background: true } },
        { id: "bg-2", name: "bash", arguments: { command: "echo hi; exit 5", run_in_background: true } },
      ],
    };
  return { text: "SHELLS-STARTED" };
}

describe("/shells", () => {
  it("lists the background shells with their state and runtime, and stops one", async () => {
    const { tmux } = await startGyre(startShells, { args: ["--sandbox", "off"] });
    await submit(tmux, "start two shells");
    await tmux.waitFor("SHELLS-STARTED");
    const screen = await listUntil(tmux, /shell-2\s+exited with code 5/);
    expect(screen).toMatch(/shell-1\s+running\s+\d+ m?s\s+sleep 300/);
    await submit(tmux, "/shells kill shell-1");
    await tmux.waitFor("shell-1: killed (SIGTERM).");
    await submit(tmux, "/shells");
    await tmux.waitFor(/shell-1\s+killed \(SIGTERM\)\s+\d+ m?s\s+sleep 300/);
  });
});
