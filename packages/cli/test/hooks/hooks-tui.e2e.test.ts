/**
 * Hooks in the TUI, in tmux against a fake model server: a PreToolUse guard blocks `rm -rf` and
 * the model reads why; UserPromptSubmit adds context below the prompt.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "../interactive/gyre-in-tmux.js";

afterEach(stopGyres);

const guard = `grep -q "rm -rf" && { echo "rm -rf is not allowed here; remove files one by one" >&2; exit 2; }; exit 0`;

describe("hooks in the TUI", () => {
  it("blocks rm -rf with a guard the model hears, and adds UserPromptSubmit context", async () => {
    const { tmux, server, cwd } = await startGyre(
      ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "bash", arguments: { command: "rm -rf build" } }] }
          : { text: "left build in place" },
      {
        setup: async ({ cwd, home }) => {
          await mkdir(join(cwd, "build"));
          const hooks = {
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard }] }],
            UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'Note: the CI is red today.'" }] }],
          };
          await writeFile(join(home, "settings.json"), JSON.stringify({ hooks }));
        },
      },
    );
    await submit(tmux, "clean up");
    await tmux.waitFor((screen) => screen.includes("left build in place") && !screen.includes("esc to interrupt"));
    expect(existsSync(join(cwd, "build"))).toBe(true);
    const [first, second] = server.requests;
    expect(JSON.stringify(first?.body.messages?.at(-1))).toContain("Note: the CI is red today.");
    const toolResult = second?.body.messages?.find((message) => message.role === "tool");
    expect(JSON.stringify(toolResult?.content)).toContain("rm -rf is not allowed here; remove files one by one");
    expect(await tmux.capture()).toContain("rm -rf is not allowed here");
  });
});
