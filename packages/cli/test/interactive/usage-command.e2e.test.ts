import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RequestBody, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** The main agent gives a task to an explore subagent, which reads a file and answers; then the main agent answers. */
function delegate({ body }: { body: RequestBody }) {
  const users = userTexts(body).join(" ");
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  if (users.includes("TASK-READ")) {
    if (results === 0)
      return {
        toolCalls: [{ id: "sub-read", name: "read", arguments: { path: "notes.md" } }],
        usage: { prompt_tokens: 3000, completion_tokens: 30, total_tokens: 3030 },
      };
    return { text: "notes say hello", usage: { prompt_tokens: 3100, completion_tokens: 40, total_tokens: 3140 } };
  }
  if (results === 0)
    return {
      toolCalls: [
        { id: "task-1", name: "task", arguments: { description: "read notes", prompt: "TASK-READ", agent: "explore" } },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
    };
  return { text: "ALL-DONE", usage: { prompt_tokens: 1200, completion_tokens: 20, total_tokens: 1220 } };
}

describe("/usage", () => {
  it("shows the session's agents as a tree with their calls and tokens, and the main agent's turns", async () => {
    const { tmux } = await startGyre(delegate, {
      args: ["--tools", "read,task"],
      height: 50,
      setup: async ({ cwd }) => {
        await writeFile(join(cwd, "notes.md"), "hello\n");
      },
    });
    await submit(tmux, "delegate the reading");
    await tmux.waitFor("ALL-DONE");
    await submit(tmux, "/usage");
    const screen = await tmux.waitFor("Turns of the main agent");
    // main: its 2 calls and the subagent's 2; explore under it: its own 2.
    expect(screen).toMatch(/\n( *)main\s+4\s+8\.3k\s+190\s[^\n]*\n\1 {2}explore\s+2\s+6\.1k\s+70\s/);
    expect(screen).toMatch(/turn 1\s+openai\/gpt-4o\s+1\s+1\.0k\s+100\s/);
    expect(screen).toMatch(/turn 2\s+\S+\s+1\s+1\.2k\s+20\s/);
  });
});
