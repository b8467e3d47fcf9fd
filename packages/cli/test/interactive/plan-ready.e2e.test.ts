/**
 * The plan-ready step in the real TUI (tmux) against the fake model server: a plan-mode answer is
 * followed by "Plan ready — start editing?"; yes leaves plan mode and sends the go-ahead with the
 * editing tools offered again, no stays in plan mode and sends nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GO_AHEAD_PROMPT } from "../../src/modes/interactive/plan-ready.js";
import { type RequestBody, startGyre, stopGyres, submit, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

type Body = RequestBody & { tools?: { function?: { name?: string } }[] };
const toolNames = (body: Body | undefined) => (body?.tools ?? []).map((tool) => tool.function?.name);

async function planned() {
  const bodies: Body[] = [];
  const started = await startGyre(({ body, index }) => {
    bodies.push(body as Body);
    return { text: index === 0 ? "PLAN: step one, then step two" : `carried-out-${index}` };
  });
  const { tmux } = started;
  await tmux.send(["BTab"]);
  await tmux.waitFor("plan mode (shift+tab to leave)");
  await submit(tmux, "make a plan");
  const asked = await tmux.waitFor("Plan ready — start editing?");
  expect(asked).toContain("PLAN: step one");
  expect(toolNames(bodies[0])).not.toContain("edit");
  return { ...started, bodies };
}

describe("the plan-ready step", () => {
  it("leaves plan mode on yes and sends the go-ahead, with write and edit offered again", async () => {
    const { tmux, bodies } = await planned();
    await tmux.send(["Enter"]);
    const done = await tmux.waitFor(
      (text) => text.includes("carried-out-1") && text.includes("sandbox workspace-write"),
    );
    expect(done).not.toContain("plan mode (shift+tab");
    expect(bodies).toHaveLength(2);
    expect(toolNames(bodies[1])).toEqual(expect.arrayContaining(["write", "edit"]));
    expect(userTexts(bodies[1]).at(-1)).toContain(GO_AHEAD_PROMPT);
    // The go-ahead ran in the default mode: no second question.
    expect(done).not.toContain("Plan ready — start editing?");
  });

  it("stays in plan mode on no and sends nothing", async () => {
    const { tmux, bodies } = await planned();
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    const stayed = await tmux.waitFor("Still in plan mode");
    expect(stayed).toContain("plan mode (shift+tab to leave)");
    expect(stayed).not.toContain("Plan ready — start editing?");
    await submit(tmux, "refine it");
    await tmux.waitFor("carried-out-1");
    expect(bodies).toHaveLength(2);
    expect(toolNames(bodies[1])).not.toContain("edit");
  });
});
