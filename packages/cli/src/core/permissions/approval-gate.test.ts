import type { BeforeToolCallInput } from "@gyre/agent";
import { describe, expect, it } from "vitest";
import type { ApprovalAnswer, ApprovalRequest } from "../user-interface.js";
import { type ApprovalMode, createApprovalGate } from "./approval-gate.js";
import { createRuleSet, type PermissionRules } from "./permission-rules.js";

function input(name: string, args: Record<string, unknown>): BeforeToolCallInput {
  return {
    toolCall: { type: "toolCall", id: "c1", name, arguments: args },
    args,
    assistantMessage: {} as BeforeToolCallInput["assistantMessage"],
    context: { messages: [] },
  };
}

function gateWith(options: {
  approval?: ApprovalMode;
  rules?: PermissionRules;
  approved?: string[];
  answer?: ApprovalAnswer;
  onStop?: () => void;
}) {
  const asked: ApprovalRequest[] = [];
  const saved: string[] = [];
  const gate = createApprovalGate({
    rules: createRuleSet(options.rules ?? {}, { cwd: "/w", homeDir: "/h" }),
    ...(options.approved ? { approved: createRuleSet({ allow: options.approved }, { cwd: "/w", homeDir: "/h" }) } : {}),
    ...(options.onStop ? { stopRun: options.onStop } : {}),
    approval: options.approval ?? "ask",
    ask: options.answer
      ? async (request) => {
          asked.push(request);
          return options.answer as ApprovalAnswer;
        }
      : undefined,
    protectedFiles: { cwd: "/w", homeDir: "/h", gyreHome: "/h/.gyre", extra: [] },
    saveAllowRule: async (rules) => {
      saved.push(...rules);
    },
  });
  return { gate, asked, saved };
}

const signal = new AbortController().signal;
const escalate = input("bash", { command: "npm install", escalate: true, justification: "needs the registry" });

describe("the approval gate", () => {
  it("lets ordinary calls through without asking", async () => {
    const { gate, asked } = gateWith({ answer: { decision: "deny" } });
    expect(await gate.beforeToolCall(input("bash", { command: "ls" }), signal)).toBeUndefined();
    expect(await gate.beforeToolCall(input("write", { path: "src/a.ts" }), signal)).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it("asks for an escalation and saves the command's prefix rule on allow_always", async () => {
    const { gate, asked, saved } = gateWith({ answer: { decision: "allow_always" } });
    expect(await gate.beforeToolCall(escalate, signal)).toBeUndefined();
    expect(asked[0]?.reason).toContain("outside the sandbox (needs the registry)");
    expect(saved).toEqual(["bash(npm install:*)"]);
  });

  it("saves the rules the user edited instead of the suggestion", async () => {
    const { gate, saved } = gateWith({ answer: { decision: "allow_always", rules: ["bash(npm:*)"] } });
    expect(await gate.beforeToolCall(escalate, signal)).toBeUndefined();
    expect(saved).toEqual(["bash(npm:*)"]);
  });

  it("lets the user's approved rule beat an ask rule, but not a deny rule", async () => {
    const test = input("bash", { command: "npm test 2>&1 | tail -30" });
    const rules = { ask: ["bash(npm test:*)"] };
    const approved = gateWith({ rules, approved: ["bash(npm test:*)", "bash(tail:*)"], answer: { decision: "deny" } });
    expect(await approved.gate.beforeToolCall(test, signal)).toBeUndefined();
    expect(approved.asked).toEqual([]);
    const partly = gateWith({ rules, approved: ["bash(npm test:*)"], answer: { decision: "deny" } });
    expect((await partly.gate.beforeToolCall(test, signal))?.block).toBe(true);
    const denied = gateWith({ rules: { deny: ["bash(npm test:*)"] }, approved: ["bash(npm test:*)", "bash(tail:*)"] });
    expect((await denied.gate.beforeToolCall(test, signal))?.reason).toContain("Denied by the permission rules");
  });

  it("applies new rules at once through setRules", async () => {
    const { gate } = gateWith({ approval: "allow" });
    const read = input("read", { path: "package.json" });
    expect(await gate.beforeToolCall(read, signal)).toBeUndefined();
    gate.setRules(createRuleSet({ deny: ["read(package.json)"] }, { cwd: "/w", homeDir: "/h" }));
    expect((await gate.beforeToolCall(read, signal))?.reason).toContain("Denied by the permission rules");
  });

  it("stops the run when the user presses Esc at the question", async () => {
    let stopped = 0;
    const { gate } = gateWith({ answer: { decision: "deny", stop: true }, onStop: () => stopped++ });
    expect((await gate.beforeToolCall(escalate, signal))?.reason).toContain("The user stopped the run");
    expect(stopped).toBe(1);
  });

  it("passes the user's reason for a no on to the model", async () => {
    const { gate } = gateWith({ answer: { decision: "deny", reason: "use the cache" } });
    const verdict = await gate.beforeToolCall(input("write", { path: "/h/.bashrc" }), signal);
    expect(verdict?.reason).toContain("/h/.bashrc is a protected path");
    expect(verdict?.reason).toContain("They said: use the cache");
  });

  it("denies without an asker, and allows everything with --approval allow", async () => {
    expect((await gateWith({}).gate.beforeToolCall(escalate, signal))?.block).toBe(true);
    expect(await gateWith({ approval: "allow" }).gate.beforeToolCall(escalate, signal)).toBeUndefined();
  });

  it("treats an allow rule as standing approval, but never over a deny rule", async () => {
    const allowed = gateWith({ approval: "deny", rules: { allow: ["bash(npm install)"] } });
    expect(await allowed.gate.beforeToolCall(escalate, signal)).toBeUndefined();
    const denied = gateWith({ approval: "allow", rules: { allow: ["bash(npm install)"], deny: ["bash(npm:*)"] } });
    expect((await denied.gate.beforeToolCall(escalate, signal))?.reason).toContain("Denied by the permission rules");
  });

  it("withholds write and edit in plan mode", async () => {
    const { gate } = gateWith({ approval: "allow" });
    gate.setPlanMode(true);
    expect((await gate.beforeToolCall(input("edit", { path: "a" }), signal))?.reason).toContain(
      "Plan mode: edit is withheld",
    );
    gate.setPlanMode(false);
    expect(await gate.beforeToolCall(input("edit", { path: "a" }), signal)).toBeUndefined();
  });
});
