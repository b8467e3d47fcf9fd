import { mkdir, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { createEmptyUsage } from "@gyre/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir } from "../../../test/tools/helpers.js";
import { loadAgentDefinitions } from "./agent-definitions.js";
import { createTreeBudget } from "./tree-budget.js";

describe("agent definitions", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());

  it("loads Markdown agents, lets the later folder override by name, and reports bad files", async () => {
    const user = nodePath.join(dir, "home-agents");
    const project = nodePath.join(dir, "project-agents");
    await mkdir(user);
    await mkdir(project);
    await writeFile(
      nodePath.join(user, "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews a diff\ntools: read, grep\nmodel: faux-2\nthinking: high\n---\nYou review code.\n",
    );
    await writeFile(
      nodePath.join(project, "reviewer.md"),
      "---\ndescription: The project's reviewer\n---\nProject rules.\n",
    );
    await writeFile(nodePath.join(project, "broken.md"), "---\nname: broken\n---\nno description\n");
    await writeFile(nodePath.join(project, "odd.md"), "---\ndescription: x\nthinking: extreme\n---\n");
    await writeFile(nodePath.join(project, "notes.txt"), "ignored");
    const { definitions, problems } = await loadAgentDefinitions([user, project, nodePath.join(dir, "missing")]);
    expect(definitions.map((definition) => definition.name)).toEqual(["general", "explore", "reviewer"]);
    expect(definitions.find((definition) => definition.name === "reviewer")).toEqual({
      name: "reviewer",
      description: "The project's reviewer",
      systemPrompt: "Project rules.",
      source: nodePath.join(project, "reviewer.md"),
    });
    expect(problems.map((problem) => [nodePath.basename(problem.path), problem.message])).toEqual([
      ["broken.md", expect.stringMatching(/no description/)],
      ["odd.md", 'thinking "extreme" is not one of off, low, medium, high'],
    ]);
    const userOnly = await loadAgentDefinitions([user]);
    expect(userOnly.definitions.find((definition) => definition.name === "reviewer")).toMatchObject({
      tools: ["read", "grep"],
      model: "faux-2",
      thinking: "high",
    });
  });
});

describe("tree budget", () => {
  const message = (tokens: number, cost: number) => {
    const usage = createEmptyUsage();
    usage.totalTokens = tokens;
    usage.cost.total = cost;
    return {
      role: "assistant" as const,
      content: [],
      api: "faux",
      provider: "faux",
      model: "m",
      usage,
      stopReason: "stop" as const,
      timestamp: 0,
    };
  };

  it("adds up every agent of the tree, says which limit was reached, and can be raised", () => {
    let clock = 0;
    const budget = createTreeBudget({ maxCostUsd: 0.05, maxWallTimeMs: 60_000 }, () => clock);
    budget.charge("main", message(100, 0.02));
    budget.charge("explore#1", message(50, 0.02));
    expect(budget.check()).toBeUndefined();
    budget.charge("explore#1", message(50, 0.01));
    expect(budget.check()).toMatchObject({
      budget: "cost",
      reason: "The spend budget of the agent tree is reached ($0.0500 of $0.0500).",
    });
    expect(budget.breakdown()).toEqual([
      { agent: "main", turns: 1, tokens: 100, cost: 0.02, durationMs: 0 },
      { agent: "explore#1", turns: 2, tokens: 100, cost: 0.03, durationMs: 0 },
    ]);
    budget.raise({ maxCostUsd: 0.1 });
    expect(budget.check()).toBeUndefined();
    clock = 61_000;
    expect(budget.check()).toMatchObject({
      budget: "time",
      reason: "The wall time budget of the agent tree is reached (61 s of 60 s).",
    });
    budget.raise({ maxWallTimeMs: undefined });
    expect(budget.check()).toBeUndefined();
    expect(budget.total()).toEqual({ turns: 3, tokens: 200, cost: 0.05, durationMs: 61_000 });
  });
});
