import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RequestBody, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
const never = new Promise<never>(() => {});

/**
 * The main agent hands two tasks to subagents at once; each subagent reads a file, then its
 * next model call never answers, so both stay running until Esc.
 */
function fanOut({ body }: { body: RequestBody }) {
  const users = userTexts(body).join(" ");
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  for (const [marker, path] of [
    ["TASK-ALPHA", "alpha.md"],
    ["TASK-BETA", "beta.md"],
  ] as const) {
    if (!users.includes(marker)) continue;
    if (results === 0) return { toolCalls: [{ id: `${marker}-read`, name: "read", arguments: { path } }], usage };
    return never;
  }
  return {
    toolCalls: [
      { id: "task-a", name: "task", arguments: { description: "alpha", prompt: "TASK-ALPHA", agent: "explore" } },
      { id: "task-b", name: "task", arguments: { description: "beta", prompt: "TASK-BETA", agent: "explore" } },
    ],
    usage,
  };
}

describe("subagents in the terminal", () => {
  it("shows each running subagent as one line with its live status, expands it, and Esc aborts the tree", async () => {
    const { tmux } = await startGyre(fanOut, {
      args: ["--tools", "read,task"],
      height: 40,
      setup: async ({ cwd }) => {
        await writeFile(join(cwd, "alpha.md"), "alpha\n");
        await writeFile(join(cwd, "beta.md"), "beta\n");
      },
    });
    await submit(tmux, "split the work");
    const live = await tmux.waitFor(
      (screen) =>
        /▸ explore#1 · thinking · 1 turn · \$0\.00\d\d/.test(screen) && screen.includes("▸ explore#2 · thinking"),
    );
    expect(live).not.toContain("read alpha.md");
    await tmux.send(["C-o"]);
    const expanded = await tmux.waitFor((screen) => screen.includes("▾ explore#1") && screen.includes("read beta.md"));
    expect(expanded).toMatch(/▾ explore#\d[^\n]*\n\s+read (alpha|beta)\.md/);
    await tmux.send(["C-o"]);
    await tmux.waitFor("▸ explore#1");
    await tmux.send(["Escape"]);
    const aborted = await tmux.waitFor(
      (screen) => screen.includes("▸ explore#1 · aborted") && screen.includes("▸ explore#2 · aborted"),
    );
    // Both task calls end aborted in the conversation too.
    expect(aborted.match(/⏹ aborted/g)).toHaveLength(2);
    // The tree stopped: the editor takes a new prompt.
    await tmux.waitFor((screen) => !screen.includes("aborting…"));
  });
});
