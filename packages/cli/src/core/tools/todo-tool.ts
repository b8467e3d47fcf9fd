/**
 * The todo tool: the model writes its whole task list at once (items with a status), gyre keeps
 * it in a `TodoStore` that UIs pin and the wire modes send, and the list survives compaction
 * (see `formatTodoReminder`) and resume (see `findLatestTodos`).
 */
import type { AgentMessage, AgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";

export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
export type TodoItem = { content: string; status: TodoStatus };
export type TodoToolDetails = { todos: TodoItem[] };

const MAX_ITEMS = 100;
const MAX_CONTENT = 500;

const todoParameters = Type.Object({
  todos: Type.Array(
    Type.Object({
      content: Type.String({ minLength: 1, description: "What to do, as a short imperative sentence." }),
      status: Type.Union(
        TODO_STATUSES.map((status) => Type.Literal(status)),
        { description: "pending, in_progress (one item at a time) or completed." },
      ),
    }),
    { maxItems: MAX_ITEMS, description: "The whole list, in order. It replaces the previous list." },
  ),
});

/** The session's current todo list; `subscribe` fires on every change. */
export type TodoStore = {
  get(): readonly TodoItem[];
  set(todos: readonly TodoItem[]): void;
  subscribe(listener: (todos: readonly TodoItem[]) => void): () => void;
};

/** Creates an empty store, or one holding `initial` (a resumed session's last list). */
export function createTodoStore(initial: readonly TodoItem[] = []): TodoStore {
  let todos: readonly TodoItem[] = initial;
  const listeners = new Set<(todos: readonly TodoItem[]) => void>();
  return {
    get: () => todos,
    set(next) {
      todos = next.map((item) => ({ ...item }));
      for (const listener of listeners) listener(todos);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Creates the todo tool writing to `store`. */
export function createTodoTool(options: { store: TodoStore }): AgentTool<typeof todoParameters, TodoToolDetails> {
  return {
    name: "todo",
    readOnly: true,
    label: "Todo",
    description:
      "Keep a task list for work with several steps: pass the whole list each time (it replaces the previous one), " +
      "each item with status pending, in_progress or completed. Keep exactly one item in_progress while you work, " +
      "mark items completed as soon as they are done, and add items you discover. Skip it for one-step tasks.",
    parameters: todoParameters,
    executionMode: "sequential",
    async execute(args) {
      const todos = args.todos.map((item) => ({
        content: item.content.trim().slice(0, MAX_CONTENT),
        status: item.status,
      }));
      const empty = todos.findIndex((item) => item.content === "");
      if (empty !== -1) throw new Error(`Item ${empty + 1} has no text. Give every item a short description.`);
      options.store.set(todos);
      const active = todos.filter((item) => item.status === "in_progress").length;
      const hint =
        active > 1
          ? `\n${active} items are in_progress; keep one at a time and mark the others pending or completed.`
          : "";
      return {
        content: [{ type: "text", text: `${summarizeTodos(todos)}\n${formatTodos(todos)}${hint}` }],
        details: { todos },
      };
    },
  };
}

/** "3 of 5 done" style headline. */
export function summarizeTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "The todo list is empty.";
  const done = todos.filter((item) => item.status === "completed").length;
  return `Todo list updated: ${done} of ${todos.length} done.`;
}

/** One line per item: `[x]` completed, `[>]` in progress, `[ ]` pending. */
export function formatTodos(todos: readonly TodoItem[]): string {
  const marks: Record<TodoStatus, string> = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };
  return todos.map((item) => `${marks[item.status]} ${item.content}`).join("\n");
}

/**
 * The text a compaction summary carries so the list outlives the messages that wrote it;
 * undefined when there is no open list.
 */
export function formatTodoReminder(todos: readonly TodoItem[]): string | undefined {
  if (todos.length === 0 || todos.every((item) => item.status === "completed")) return undefined;
  return `The current todo list (from the todo tool; update it with the tool as you work):\n${formatTodos(todos)}`;
}

/** The list written by the last successful todo call in `messages` (a resumed or compacted history). */
export function findLatestTodos(messages: readonly AgentMessage[]): TodoItem[] | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== "toolResult" || message.toolName !== "todo" || message.isError) continue;
    const details = message.details as Partial<TodoToolDetails> | undefined;
    if (Array.isArray(details?.todos)) return details.todos.filter(isTodoItem);
  }
  return undefined;
}

function isTodoItem(value: unknown): value is TodoItem {
  if (value === null || typeof value !== "object") return false;
  const item = value as Record<string, unknown>;
  return typeof item.content === "string" && TODO_STATUSES.includes(item.status as TodoStatus);
}
