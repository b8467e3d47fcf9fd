import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RequestBody, readSessionFiles, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

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

/**
 * The main agent hands the notes to a subagent, which reads them twice and answers; the main
 * agent then answers too. Five model calls, and `--max-turns 3` is spent inside the subagent.
 */
function delegateReads({ body }: { body: RequestBody }) {
  const child = userTexts(body).some((text) => text.includes("SUBTASK-NOTES"));
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  if (child && results < 2)
    return { toolCalls: [{ id: `child-read-${results}`, name: "read", arguments: { path: "notes.md" } }] };
  if (child) return { text: "child-read-the-notes" };
  if (results === 0) {
    const args = { description: "read notes", prompt: "SUBTASK-NOTES", agent: "explore" };
    return { toolCalls: [{ id: "task-1", name: "task", arguments: args }] };
  }
  return { text: "parent-got-the-answer" };
}

describe("a budget reached by a subagent in the terminal", () => {
  it("pauses the whole tree, and the subagent goes on in the same journal once the user raises it", async () => {
    const { tmux, server, home } = await startGyre(delegateReads, {
      args: ["--tools", "read,task", "--max-turns", "3"],
      height: 40,
      setup: async ({ cwd }) => writeFile(join(cwd, "notes.md"), "alpha\n"),
    });
    await submit(tmux, "delegate the notes");
    const paused = await tmux.waitFor("Raise it and go on?");
    expect(paused).toContain("The turn budget of the agent tree is reached (3 of 3).");
    expect(server.requests).toHaveLength(3);
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("parent-got-the-answer");
    expect(screen).toContain("The turns budget was raised; the run goes on.");
    expect(server.requests).toHaveLength(5);
    // The subagent's prompt went out once: it was not started over.
    const childStarts = server.requests.filter(
      (request) =>
        userTexts(request.body as RequestBody).some((text) => text.includes("SUBTASK-NOTES")) &&
        !(request.body as RequestBody).messages?.some((message) => message.role === "tool"),
    );
    expect(childStarts).toHaveLength(1);
    const journal = (await readSessionFiles(home)).find((file) =>
      file.entries.some((entry) => entry.type === "session" && entry.mode === "subagent"),
    );
    const roles = journal?.entries
      .filter((entry) => entry.type === "message")
      .map((entry) => (entry.message as { role: string }).role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
    // The footer counts the whole tree: five calls of 100 input and 20 output tokens each.
    await tmux.waitFor((text) => text.includes("↑500") && text.includes("↓100"));
  });
});

/** A read, then a task call at the budget; the subagent answers at once, and the parent answers last. */
function readThenDelegate({ body }: { body: RequestBody }) {
  if (userTexts(body).some((text) => text.includes("SUBTASK-LATE"))) return { text: "child-was-started" };
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  if (results === 0) return { toolCalls: [{ id: "read-1", name: "read", arguments: { path: "notes.md" } }] };
  if (results === 1) {
    const args = { description: "late task", prompt: "SUBTASK-LATE", agent: "explore" };
    return { toolCalls: [{ id: "task-1", name: "task", arguments: args }] };
  }
  return { text: "parent-final-answer" };
}

describe("a subagent asked for at the budget", () => {
  it("asks before the model hears a refusal, starts the subagent once raised, and asks nothing after the final answer", async () => {
    const { tmux, server } = await startGyre(readThenDelegate, {
      args: ["--tools", "read,task", "--max-turns", "2"],
      height: 40,
      setup: async ({ cwd }) => writeFile(join(cwd, "notes.md"), "alpha\n"),
    });
    await submit(tmux, "read then delegate");
    const paused = await tmux.waitFor("Raise it and go on?");
    expect(paused).toContain("The turn budget of the agent tree is reached (2 of 2).");
    expect(server.requests).toHaveLength(2);
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("parent-final-answer");
    // The subagent ran (its prompt reached the model) and the parent got its answer, not a refusal.
    const childCalls = server.requests.filter((request) =>
      userTexts(request.body as RequestBody).some((text) => text.includes("SUBTASK-LATE")),
    );
    expect(childCalls).toHaveLength(1);
    const last = JSON.stringify(server.requests.at(-1)?.body);
    expect(last).toContain("child-was-started");
    expect(last).not.toContain("No subagent was started");
    expect(server.requests).toHaveLength(4);
    // The fourth call was the final answer: the tree is at 4 of 4, but nothing is left to raise it for.
    await submit(tmux, "/cost");
    const after = await tmux.waitFor(/cost\s+\$\d/);
    expect(after.split("parent-final-answer").at(-1)).not.toContain("Raise it and go on?");
    expect(screen).not.toContain("(4 of 4)");
  });
});
