import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSessionFiles, startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** Three reads, then the answer: a run of four model calls, two more than `--max-turns 2` allows. */
const readThrice = ({ index }: { index: number }) =>
  index < 3
    ? { toolCalls: [{ id: `call-${index}`, name: "read", arguments: { path: "notes.md" } }] }
    : { text: "all-notes-read" };

async function startAtBudget() {
  const started = await startGyre(readThrice, {
    args: ["--tools", "read", "--max-turns", "2"],
    height: 40,
    setup: async ({ cwd }) => writeFile(join(cwd, "notes.md"), "alpha\n"),
  });
  await submit(started.tmux, "read the notes");
  await started.tmux.waitFor("Raise it and go on?");
  return started;
}

describe("a budget reached in the terminal", () => {
  it("pauses and asks, and the same run goes on once the user raises the limit", async () => {
    const { tmux, server, home } = await startAtBudget();
    const screen = await tmux.capture();
    expect(screen).toContain("The turn budget of the agent tree is reached (2 of 2).");
    expect(screen).toContain("Raise the turn budget to 4 turns and go on");
    expect(server.requests).toHaveLength(2);
    await tmux.send(["Enter"]);
    await tmux.waitFor("all-notes-read");
    expect(await tmux.capture()).toContain("The turns budget was raised; the run goes on.");
    expect(server.requests).toHaveLength(4);
    const [file] = await readSessionFiles(home);
    const users = file?.entries.filter(
      (entry) => entry.type === "message" && (entry.message as { role: string }).role === "user",
    );
    // One request, one user message: the raised run went on instead of starting over.
    expect(users).toHaveLength(1);
  });

  it("raises by an amount typed, and warns about one that is not a number", async () => {
    const { tmux, server } = await startAtBudget();
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Raise the turn budget by how much?");
    await submit(tmux, "lots");
    await tmux.waitFor('"lots" is not an amount to raise the turn budget by');
    await tmux.waitFor("Raise it and go on?");
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Raise the turn budget by how much?");
    await submit(tmux, "1");
    // 2 + 1 turns: one more read, then the budget asks again.
    await tmux.waitFor((text) => text.includes("(3 of 3)") && text.includes("Raise it and go on?"));
    expect(server.requests).toHaveLength(3);
  });

  it("stops the run when the user says stop, as the headless modes do", async () => {
    const { tmux, server } = await startAtBudget();
    await tmux.send(["Down"]);
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Stopped: The turn budget of the agent tree is reached (2 of 2).");
    await submit(tmux, "/cost");
    await tmux.waitFor(/cost\s+\$\d/);
    expect(server.requests).toHaveLength(2);
    expect(await tmux.capture()).not.toContain("all-notes-read");
  });
});
