import { describe, expect, it } from "vitest";
import { createHeadlessUserInterface, type UserInterface } from "../user-interface.js";
import { createBudgetQuestion, parseBudgetAmount } from "./budget-question.js";

const reached = { budget: "cost" as const, limit: 0.5, used: 0.5, reason: "The spend budget is reached." };

/** A user who answers from a list, in order; what they were told is kept. */
function scriptedUser(answers: (string | undefined)[]): UserInterface & { told: string[]; titles: string[] } {
  const told: string[] = [];
  const titles: string[] = [];
  const next = async ({ title }: { title: string }) => {
    titles.push(title);
    return answers.shift();
  };
  return {
    interactive: true,
    confirm: async () => false,
    select: next,
    input: next,
    notify: (m) => told.push(m),
    told,
    titles,
  };
}

describe("the question at a reached budget", () => {
  it("reads amounts for each kind of budget and refuses what is not one", () => {
    expect(parseBudgetAmount("turns", "10")).toEqual({ ok: true, value: 10 });
    expect(parseBudgetAmount("turns", "2.5").ok).toBe(false);
    expect(parseBudgetAmount("tokens", "50k")).toEqual({ ok: true, value: 50_000 });
    expect(parseBudgetAmount("cost", "$0.25")).toEqual({ ok: true, value: 0.25 });
    expect(parseBudgetAmount("time", "5m")).toEqual({ ok: true, value: 300_000 });
    expect(parseBudgetAmount("time", "90")).toEqual({ ok: true, value: 90_000 });
    expect(parseBudgetAmount("cost", "0")).toMatchObject({ ok: false });
    expect(parseBudgetAmount("tokens", "lots")).toEqual({
      ok: false,
      error: '"lots" is not an amount to raise the token budget by (e.g. 50000 or 50k tokens).',
    });
  });

  it("doubles the limit, raises it by the amount typed after a bad one, or stops", async () => {
    const double = scriptedUser(["Raise the spend budget to $1.00 and go on"]);
    expect(await createBudgetQuestion(double)(reached, new AbortController().signal)).toEqual({ maxCostUsd: 1 });
    const typed = scriptedUser(["Raise it by an amount I type", "cheap", "Raise it by an amount I type", "0.25"]);
    expect(await createBudgetQuestion(typed)(reached, new AbortController().signal)).toEqual({ maxCostUsd: 0.75 });
    expect(typed.told).toEqual(['"cheap" is not an amount to raise the spend budget by (e.g. 0.50 for $0.50).']);
    expect(typed.titles[0]).toBe("The spend budget is reached. Raise it and go on?");
    const stop = scriptedUser(["Stop here"]);
    expect(await createBudgetQuestion(stop)(reached, new AbortController().signal)).toBeUndefined();
    const dismissed = scriptedUser([undefined]);
    expect(await createBudgetQuestion(dismissed)(reached, new AbortController().signal)).toBeUndefined();
  });

  it("stops without asking when nobody can answer", async () => {
    const headless = createHeadlessUserInterface();
    expect(await createBudgetQuestion(headless)(reached, new AbortController().signal)).toBeUndefined();
  });
});
