import { runAgentLoopWithListener } from "@gyre/agent";
import type { ToolResultMessage } from "@gyre/ai";
import { createFauxModel } from "@gyre/ai/testing";
import { describe, expect, it } from "vitest";
import { textOf, toolContext } from "../../../test/tools/helpers.js";
import { createTodoStore, createTodoTool, findLatestTodos, formatTodoReminder } from "./todo-tool.js";

describe("todo tool", () => {
  it("replaces the whole list, tells the model the progress and notifies subscribers", async () => {
    const store = createTodoStore();
    const seen: number[] = [];
    store.subscribe((todos) => seen.push(todos.length));
    const tool = createTodoTool({ store });
    await tool.execute({ todos: [{ content: "read the code", status: "in_progress" }] }, toolContext());
    const result = await tool.execute(
      {
        todos: [
          { content: "read the code", status: "completed" },
          { content: " fix the bug ", status: "in_progress" },
          { content: "run the tests", status: "pending" },
        ],
      },
      toolContext(),
    );
    expect(textOf(result)).toBe(
      "Todo list updated: 1 of 3 done.\n[x] read the code\n[>] fix the bug\n[ ] run the tests",
    );
    expect(store.get()).toEqual(result.details?.todos);
    expect(seen).toEqual([1, 3]);
  });

  it("asks for one item in progress at a time and refuses blank items", async () => {
    const tool = createTodoTool({ store: createTodoStore() });
    const result = await tool.execute(
      {
        todos: [
          { content: "a", status: "in_progress" },
          { content: "b", status: "in_progress" },
        ],
      },
      toolContext(),
    );
    expect(textOf(result)).toMatch(/2 items are in_progress; keep one at a time/);
    await expect(tool.execute({ todos: [{ content: "   ", status: "pending" }] }, toolContext())).rejects.toThrow(
      /Item 1 has no text/,
    );
  });

  it("gives the model an error result listing the problem when a status is not one of the three", async () => {
    const store = createTodoStore();
    const faux = createFauxModel([
      { content: [{ type: "toolCall", name: "todo", arguments: { todos: [{ content: "x", status: "done" }] } }] },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const { messages } = await runAgentLoopWithListener(
      {
        model: faux.model,
        context: { messages: [], tools: [createTodoTool({ store })] },
        prompts: [{ role: "user", content: "plan", timestamp: 0 }],
      },
      () => {},
    );
    const result = messages.find((message): message is ToolResultMessage => message.role === "toolResult");
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toMatch(/status/);
    expect(store.get()).toEqual([]);
  });

  it("is found again in a resumed history and carried by the compaction reminder while items are open", async () => {
    const store = createTodoStore();
    const faux = createFauxModel([
      {
        content: [
          {
            type: "toolCall",
            name: "todo",
            arguments: {
              todos: [
                { content: "step one", status: "in_progress" },
                { content: "step two", status: "pending" },
              ],
            },
          },
        ],
      },
      { content: [{ type: "text", text: "working" }] },
    ]);
    const { messages } = await runAgentLoopWithListener(
      {
        model: faux.model,
        context: { messages: [], tools: [createTodoTool({ store })] },
        prompts: [{ role: "user", content: "plan", timestamp: 0 }],
      },
      () => {},
    );
    const found = findLatestTodos(JSON.parse(JSON.stringify(messages)));
    expect(found).toEqual([
      { content: "step one", status: "in_progress" },
      { content: "step two", status: "pending" },
    ]);
    expect(formatTodoReminder(found ?? [])).toBe(
      "The current todo list (from the todo tool; update it with the tool as you work):\n[>] step one\n[ ] step two",
    );
    expect(formatTodoReminder([{ content: "done", status: "completed" }])).toBeUndefined();
    expect(findLatestTodos([])).toBeUndefined();
  });
});
