import type { AnyAgentTool, BeforeToolCallInput } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { expandPromptTemplate, splitArguments } from "../prompt-templates/prompt-templates.js";
import { parseFrontmatter } from "../skills/parse-frontmatter.js";
import { createHeadlessUserInterface, type UserInterface } from "../user-interface.js";
import { createExtensionApi } from "./create-extension-api.js";
import { ExtensionRunner } from "./extension-runner.js";
import type { ExtensionAPI } from "./types.js";

function createRunner(ui: UserInterface = createHeadlessUserInterface(), timeoutMs = 50) {
  const reports: string[] = [];
  const runner = new ExtensionRunner({ cwd: "/w", mode: "print", ui, timeoutMs, report: (line) => reports.push(line) });
  const add = (path: string, setup: (api: ExtensionAPI) => void) =>
    setup(createExtensionApi(runner, runner.addExtension(path), new Set(["model", "tools"])));
  return { runner, reports, add };
}

const tool: AnyAgentTool = {
  name: "echo",
  label: "echo",
  description: "echo",
  parameters: Type.Object({ count: Type.Number() }),
  execute: async () => ({ content: [] }),
};

function callInput(args: Record<string, unknown>): BeforeToolCallInput {
  return {
    toolCall: { type: "toolCall", id: "c1", name: "echo", arguments: args },
    args,
    assistantMessage: {} as BeforeToolCallInput["assistantMessage"],
    context: { messages: [], tools: [tool] },
  };
}

describe("ExtensionRunner", () => {
  it("chains argument rewrites, validates them with coercion, and lets the first block win", async () => {
    const { runner, add } = createRunner();
    add("/a.ts", (api) => api.on("tool_call", (event) => ({ args: { count: `${Number(event.args.count) + 1}` } })));
    add("/b.ts", (api) =>
      api.on("tool_call", (event) => (event.args.count === 3 ? { block: true, reason: "three" } : undefined)),
    );
    const input = callInput({ count: 1 });
    expect(await runner.beforeToolCall(input)).toEqual({ args: { count: 2 } });
    expect(input.args).toEqual({ count: 1 });
    expect(await runner.beforeToolCall(callInput({ count: 2 }))).toEqual({ block: true, reason: "three" });
  });

  it("blocks a call whose rewritten arguments do not match the schema", async () => {
    const { runner, add } = createRunner();
    add("/a.ts", (api) => api.on("tool_call", () => ({ args: { count: "many" } })));
    const verdict = await runner.beforeToolCall(callInput({ count: 1 }));
    expect(verdict?.block).toBe(true);
    expect(verdict?.reason).toContain("/a.ts rewrote the echo arguments into invalid ones: /count: must be number");
  });

  it("blocks the call when a tool_call gate throws, rejects or hangs (fails closed, docs/design/safety.md#approvals)", async () => {
    for (const gate of [
      () => {
        throw new Error("gate broke");
      },
      () => Promise.reject(new Error("gate rejected")),
      () => new Promise<undefined>(() => {}),
    ]) {
      const { runner, add } = createRunner();
      add("/gate.ts", (api) => api.on("tool_call", gate));
      const verdict = await runner.beforeToolCall(callInput({ count: 1 }));
      expect(verdict?.block).toBe(true);
      expect(verdict?.reason).toMatch(
        /tool_call gate of the extension \/gate\.ts could not decide \((it failed: gate (broke|rejected)|it did not finish within 50 ms)\)/,
      );
    }
  });

  it("isolates throwing and hanging handlers and reports each once", async () => {
    const { runner, reports, add } = createRunner();
    const seen: string[] = [];
    add("/bad.ts", (api) => {
      api.on("turn_start", () => {
        throw new Error("nope");
      });
      api.on("agent_start", () => new Promise(() => {}));
    });
    add("/good.ts", (api) => {
      api.on("turn_start", () => {
        seen.push("turn");
      });
      api.on("agent_start", () => {
        seen.push("agent");
      });
    });
    await runner.emit({ type: "turn_start" });
    await runner.emit({ type: "agent_start" });
    expect(seen).toEqual(["turn", "agent"]);
    expect(reports).toEqual([
      '/bad.ts: the "turn_start" handler failed: nope; skipped it.',
      '/bad.ts: the "agent_start" handler did not finish within 50 ms; skipped it.',
    ]);
  });

  it("pauses the timeout while a handler waits for the user's answer", async () => {
    let answer: (value: boolean) => void = () => {};
    const ui: UserInterface = {
      ...createHeadlessUserInterface(),
      interactive: true,
      confirm: () => new Promise((resolve) => (answer = resolve)),
    };
    const { runner, reports, add } = createRunner(ui, 20);
    add("/gate.ts", (api) =>
      api.on("tool_call", async (_event, context) =>
        (await context.ui.confirm({ title: "ok?" })) ? undefined : { block: true, reason: "declined" },
      ),
    );
    const verdict = runner.beforeToolCall(callInput({ count: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 60));
    answer(false);
    expect(await verdict).toEqual({ block: true, reason: "declined" });
    expect(reports).toEqual([]);
  });

  it("chains tool_result patches and context transforms", async () => {
    const { runner, add } = createRunner();
    add("/a.ts", (api) => {
      api.on("tool_result", () => ({ content: [{ type: "text", text: "first" }] }));
      api.on("context", (event) => ({ messages: event.messages.slice(1) }));
    });
    add("/b.ts", (api) => {
      api.on("tool_result", (event) => ({ isError: event.content.length === 1 }));
      api.on("context", (event) => ({ messages: event.messages.slice(1) }));
    });
    const result = await runner.afterToolCall({ ...callInput({ count: 1 }), result: { content: [] }, isError: false });
    expect(result).toMatchObject({ content: [{ type: "text", text: "first" }], isError: true });
    const messages = [1, 2, 3].map((n) => ({ role: "user" as const, content: `${n}`, timestamp: n }));
    expect(await runner.transformContext(messages)).toEqual([messages[2]]);
  });

  it("refuses session actions while loading, with a sentence saying when to call them", () => {
    const { add } = createRunner();
    expect(() => add("/a.ts", (api) => api.appendEntry("x", 1))).toThrow(/not available while the extension loads/);
    expect(() => add("/b.ts", (api) => api.registerFlag("model", { type: "string" }))).toThrow(/gyre's own flags/);
  });
});

describe("templates and frontmatter", () => {
  it("splits quoted arguments and fills positional and all-argument placeholders", () => {
    expect(splitArguments(`a "b c" 'd e' ""`)).toEqual(["a", "b c", "d e", ""]);
    expect(expandPromptTemplate("$1|$2|$3|$@|$ARGUMENTS|$x", ["a", "b c"])).toBe("a|b c||a b c|a b c|$x");
  });

  it("reads frontmatter fields and the body; text without frontmatter is all body", async () => {
    expect(await parseFrontmatter('---\nname: x\ndescription: "Does y"\n---\nBody\n')).toEqual({
      fields: { name: "x", description: "Does y" },
      body: "Body\n",
    });
    expect(await parseFrontmatter("Just text")).toEqual({ fields: {}, body: "Just text" });
  });
});
