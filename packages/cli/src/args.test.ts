import { describe, expect, it } from "vitest";
import { parseArgs } from "./args.js";

function parsed(argv: string[]) {
  const result = parseArgs(argv);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("parseArgs", () => {
  it("reads print mode, model flags, budgets and the prompt", () => {
    const args = parsed(["-p", "--provider", "openai", "--model=gpt-5", "--max-turns", "3", "fix", "the", "bug"]);
    expect(args).toMatchObject({ mode: "print", provider: "openai", model: "gpt-5", maxTurns: 3 });
    expect(args.prompt).toEqual(["fix", "the", "bug"]);
  });

  it("separates @file arguments from the prompt", () => {
    const args = parsed(["explain", "@src/main.ts", "@logo.png"]);
    expect(args.fileArguments).toEqual(["src/main.ts", "logo.png"]);
    expect(args.prompt).toEqual(["explain"]);
  });

  it("chooses json mode with --mode json", () => {
    expect(parsed(["--mode", "json", "-p", "hi"]).mode).toBe("json");
    expect(parsed(["--mode", "rpc"]).mode).toBe("rpc");
  });

  it.each([
    [["--bogus"], /Unknown option --bogus/],
    [["--thinking", "max"], /must be one of off, low, medium, high/],
    [["--tools", "read,rm"], /Unknown tool rm/],
    [["--max-turns", "0"], /at least 1/],
    [["--max-cost", "-1"], /positive amount/],
    [["--model"], /needs a value/],
    [["--mode", "tui"], /print, json, rpc/],
    [["--no-session", "-c"], /cannot be combined/],
  ])("rejects %j with a sentence saying what to do", (argv, message) => {
    const result = parseArgs(argv);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });

  it("collects repeatable flags", () => {
    const args = parsed(["--allow-path", "/a", "--allow-path=/b", "-e", "x.ts"]);
    expect(args.allowPaths).toEqual(["/a", "/b"]);
    expect(args.extensions).toEqual(["x.ts"]);
  });

  it.each([
    [["-pc"], "Unknown option -pc; run gyre --help to see the options."],
    [["-mgpt-5"], "Unknown option -mgpt-5; run gyre --help to see the options."],
    [["--model", "-c", "hi"], "--model needs a value; see gyre --help."],
    [["--print=yes"], '--print takes no value; remove "=yes".'],
  ])("keeps each flag as typed: %j fails with its own sentence", (argv, error) => {
    expect(parseArgs(argv)).toEqual({ ok: false, error });
  });

  it("takes everything after -- as prompt text, @words and flags alike", () => {
    const args = parsed(["-p", "--", "@notes.md", "--model", "-c"]);
    expect(args.prompt).toEqual(["@notes.md", "--model", "-c"]);
    expect(args.fileArguments).toEqual([]);
    expect(args.continueSession).toBe(false);
  });

  it("collects unknown flags on the first pass and reads extension flags on the second", () => {
    const argv = ["--draft", "--ticket", "T-1", "fix", "it"];
    const first = parseArgs(argv, { allowUnknownFlags: true });
    expect(first.ok && first.value.unknownFlags).toEqual(["--draft", "--ticket"]);
    expect(first.ok && first.value.prompt).toEqual(["T-1", "fix", "it"]);
    const second = parsed2(argv, { draft: "boolean", ticket: "string" });
    expect(second.extensionFlags).toEqual({ draft: true, ticket: "T-1" });
    expect(second.prompt).toEqual(["fix", "it"]);
    expect(parseArgs(["--draft=maybe"], { extensionFlags: { draft: "boolean" } })).toEqual({
      ok: false,
      error: "--draft takes no value or true/false.",
    });
  });

  it("takes the word after -w or --worktree as the worktree's name, and none before a flag or --", () => {
    expect(parsed(["-w", "feature", "fix", "it"])).toMatchObject({ worktree: "feature", prompt: ["fix", "it"] });
    expect(parsed(["--worktree", "feature.2"]).worktree).toBe("feature.2");
    expect(parsed(["--worktree=spike"]).worktree).toBe("spike");
    expect(parsed(["-w", "-p", "go"])).toMatchObject({ worktree: true, prompt: ["go"] });
    expect(parsed(["-w", "--", "fix it"])).toMatchObject({ worktree: true, prompt: ["fix it"] });
    expect(parsed(["fix", "-w"])).toMatchObject({ worktree: true, prompt: ["fix"] });
  });

  it.each([
    [
      ["-w", "fix the bug"],
      /^"fix the bug" cannot name a worktree: use letters.*; the word after -w is its name, so put a prompt after -- instead\.$/,
    ],
    [
      ["--worktree", "a..b"],
      /^"a..b" cannot name a worktree: git refuses ".." in a branch name, and a name ending in "." or ".lock"\.$/,
    ],
    [["--worktree=x.lock"], /^"x.lock" cannot name a worktree: git refuses/],
    [["--worktree=-x"], /cannot name a worktree: use letters/],
  ])("refuses the worktree name in %j", (argv, error) => {
    const result = parseArgs(argv);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(error);
  });
});

function parsed2(argv: string[], extensionFlags: Record<string, "boolean" | "string">) {
  const result = parseArgs(argv, { extensionFlags });
  if (!result.ok) throw new Error(result.error);
  return result.value;
}
