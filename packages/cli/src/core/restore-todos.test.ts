import { type AssistantMessage, createEmptyUsage, type ToolResultMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { restoreTodos } from "./create-harness-tools.js";
import { SessionManager } from "./session/session-manager.js";
import type { TodoItem } from "./tools/todo-tool.js";

/** The todo call and its result, as a run appends them. */
function appendTodoCall(store: SessionManager, todos: TodoItem[]): void {
  const call: AssistantMessage = {
    role: "assistant",
    content: [{ type: "toolCall", id: "t1", name: "todo", arguments: { todos } }],
    api: "faux",
    provider: "faux",
    model: "m",
    usage: createEmptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  };
  store.appendMessage(call);
  store.appendMessage(todoResult(todos));
}

function todoResult(todos: TodoItem[]): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: "t1",
    toolName: "todo",
    content: [{ type: "text", text: "updated" }],
    details: { todos },
    isError: false,
    timestamp: 0,
  };
}

const early: TodoItem[] = [{ content: "read", status: "in_progress" }];
const later: TodoItem[] = [
  { content: "read", status: "completed" },
  { content: "fix", status: "in_progress" },
];

describe("the todo list of a resumed session", () => {
  it("comes from the last todo call, else from the latest compaction, else is empty", () => {
    const store = SessionManager.inMemory({ cwd: "/tmp" });
    expect(restoreTodos([], store.getBranch())).toEqual([]);
    store.appendMessage({ role: "user", content: "go", timestamp: 0 });
    appendTodoCall(store, early);
    const firstKeptEntryId = store.appendMessage({ role: "user", content: "more", timestamp: 0 });
    store.appendCompaction({
      summary: "s",
      firstKeptEntryId,
      tokensBefore: 10,
      details: { userMessages: [], readFiles: [], modifiedFiles: [], todos: early },
    });
    const afterCompaction = store.buildContext().messages;
    expect(afterCompaction.some((message) => message.role === "toolResult")).toBe(false);
    expect(restoreTodos(afterCompaction, store.getBranch())).toEqual(early);
    appendTodoCall(store, later);
    expect(restoreTodos(store.buildContext().messages, store.getBranch())).toEqual(later);
  });
});
