import { afterEach, describe, expect, it } from "vitest";
import { type RequestBody, readSessionFiles, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

function isSummaryRequest(body: RequestBody): boolean {
  const system = body.messages?.find((message) => message.role === "system");
  return JSON.stringify(system?.content ?? "").includes("hand-over summary");
}

const plan = {
  todos: [
    { content: "read the notes", status: "in_progress" },
    { content: "write the summary", status: "pending" },
  ],
};

function planner({ body, index }: { body: RequestBody; index: number }) {
  if (isSummaryRequest(body)) return { text: "summary-of-the-talk" };
  if (index === 0) return { toolCalls: [{ id: "todo-1", name: "todo", arguments: plan }] };
  return { text: `answer-number-${index}` };
}

describe("the todo list in the terminal", () => {
  it("stays pinned above the editor while it has items, and across a compaction", async () => {
    const { tmux, server, home } = await startGyre(planner, { args: ["--tools", "read,todo"], height: 40 });
    await submit(tmux, "plan the work");
    const pinned = await tmux.waitFor((screen) => screen.includes("Todo 0/2") && screen.includes("answer-number-1"));
    expect(pinned).toMatch(/Todo 0\/2\n\s+▶ read the notes\n\s+○ write the summary/);
    // Pinned: right above the editor, below the answer.
    expect(pinned.indexOf("answer-number-1")).toBeLessThan(pinned.indexOf("Todo 0/2"));
    await submit(tmux, "go on");
    await tmux.waitFor("answer-number-2");
    // The answer shows a moment before the run has settled (persisted); /compact waits for that.
    let compacted = "";
    for (let attempt = 0; compacted === "" && attempt < 20; attempt++) {
      await submit(tmux, "/compact");
      compacted = await tmux.waitFor("Older messages were compacted", 1_000).catch(() => "");
    }
    expect(compacted).toContain("▶ read the notes");
    const [file] = await readSessionFiles(home);
    const compaction = file?.entries.find((entry) => entry.type === "compaction") as {
      summary: string;
      details: { todos?: unknown };
    };
    expect(compaction.details.todos).toEqual(plan.todos);
    expect(compaction.summary).toContain("## Todo list");
    await submit(tmux, "what next");
    await tmux.waitFor("answer-number-4");
    // The model's context lost the todo call but not the list: the summary carries it.
    const sent = userTexts(server.requests[4]?.body).join(" ");
    expect(sent).toContain("[>] read the notes");
    expect(sent).not.toContain("todo-1");
    expect(await tmux.capture()).toContain("Todo 0/2");
  });
});
