/**
 * The safety UI in the real TUI (tmux) against the fake model server: the sandbox level in the
 * footer, Shift+Tab into and out of plan mode (what the model is offered changes, the plan stays),
 * and the approval dialog's three answers for an escalated bash command.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeReply } from "../helpers/fake-model-server.mjs";
import { eventually, type RequestBody, startGyre, stopGyres, submit } from "../interactive/gyre-in-tmux.js";

afterEach(stopGyres);

type Body = RequestBody & { tools?: { function?: { name?: string } }[] };

const toolNames = (body: Body) => (body.tools ?? []).map((tool) => tool.function?.name);
const systemText = (body: Body) => JSON.stringify(body.messages?.find((m) => m.role === "system")?.content ?? "");
const toolResults = (body: Body) =>
  (body.messages ?? []).filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content));

describe("the TUI's safety", () => {
  it("enters plan mode once the run ends when Shift+Tab is pressed while it runs", async () => {
    const { tmux } = await startGyre(() => ({ text: "slow answer done", chunkSize: 2, delayMs: 150 }));
    await tmux.waitFor("sandbox workspace-write, network off");
    await submit(tmux, "take your time");
    await tmux.waitFor("slow");
    await tmux.send(["BTab"]);
    await tmux.waitFor("changes once the run ends");
    const planning = await tmux.waitFor("plan mode (shift+tab to leave)");
    expect(planning).toContain("slow answer done");
    expect(planning).toContain("sandbox read-only, network off");
    // The answer came before plan mode: it is no plan, so nothing asks to start editing.
    await submit(tmux, "!echo typed-into-the-editor");
    const typed = await tmux.waitFor(/typed-into-the-editor[\s\S]*exit 0/);
    expect(typed).not.toContain("Plan ready");
  });

  it("shows the sandbox level in the footer, and Shift+Tab cycles plan mode", async () => {
    const bodies: Body[] = [];
    const { tmux } = await startGyre(({ body, index }) => {
      bodies.push(body as Body);
      return { text: index === 0 ? "PLAN: step one, then step two" : `answer-${index}` };
    });
    await tmux.waitFor("sandbox workspace-write, network off");

    await tmux.send(["BTab"]);
    const planning = await tmux.waitFor("plan mode (shift+tab to leave)");
    expect(planning).toContain("sandbox read-only, network off");
    await submit(tmux, "make a plan");
    await tmux.waitFor("PLAN: step one");
    const inPlan = bodies[0] as Body;
    expect(toolNames(inPlan)).toEqual(expect.arrayContaining(["read", "bash"]));
    expect(toolNames(inPlan)).not.toContain("write");
    expect(toolNames(inPlan)).not.toContain("edit");
    expect(systemText(inPlan)).toContain("You are in plan mode");
    // The plan-ready step asks first; this test leaves plan mode by hand.
    await tmux.waitFor("Plan ready — start editing?");
    await tmux.send(["Escape"]);
    await tmux.waitFor("Still in plan mode");

    await tmux.send(["BTab"]);
    const left = await tmux.waitFor("sandbox workspace-write, network off");
    expect(left).not.toContain("plan mode (shift+tab");
    await submit(tmux, "go ahead");
    await tmux.waitFor("answer-1");
    const after = bodies[1] as Body;
    expect(toolNames(after)).toEqual(expect.arrayContaining(["write", "edit"]));
    expect(systemText(after)).not.toContain("You are in plan mode");
    expect(JSON.stringify(after.messages)).toContain("PLAN: step one, then step two");
  });

  it("asks before an escalated command: yes once, yes always for the rule, no with a reason", async () => {
    const bodies: Body[] = [];
    const escalate = (id: string, word: string): FakeReply => ({
      toolCalls: [
        {
          id,
          name: "bash",
          arguments: { command: `echo ran-${word}`, escalate: true, justification: `needs the host for ${word}` },
        },
      ],
    });
    const { tmux, home } = await startGyre(({ body, index }) => {
      bodies.push(body as Body);
      const script: FakeReply[] = [
        escalate("c1", "once"),
        { text: "done-once" },
        escalate("c2", "always"),
        { text: "done-always" },
        escalate("c3", "never"),
        { text: "done-never" },
      ];
      return script[index] ?? { text: "extra" };
    });

    await submit(tmux, "first");
    const dialog = await tmux.waitFor("Allow bash?");
    expect(dialog).toContain("needs the host for once");
    expect(dialog).toContain("Yes, always: bash(echo ran-once:*)");
    await tmux.send(["Enter"]);
    await tmux.waitFor("done-once");
    expect(toolResults(bodies[1] as Body).join("\n")).toContain("ran-once");

    await submit(tmux, "second");
    await tmux.waitFor("needs the host for always");
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Rule(s) to save in");
    await submit(tmux, "bash(echo ran-always)");
    await tmux.waitFor("done-always");
    expect(toolResults(bodies[3] as Body).join("\n")).toContain("ran-always");
    // An untrusted folder: the edited rule goes to the user's settings (docs/safety.md).
    const settings = await eventually(
      () => readFile(join(home, "settings.json"), "utf8").catch(() => undefined),
      "the user settings",
    );
    expect(JSON.parse(settings).permissions.approved).toEqual(["bash(echo ran-always)"]);

    await submit(tmux, "third");
    await tmux.waitFor("needs the host for never");
    await tmux.send(["Down"]);
    await tmux.send(["Down"]);
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Why not?");
    await submit(tmux, "use the sandbox instead");
    await tmux.waitFor("done-never");
    const declined = toolResults(bodies[5] as Body).join("\n");
    expect(declined).toContain("The user declined this call");
    expect(declined).toContain("They said: use the sandbox instead");
    expect(declined).not.toContain("ran-never");
  });
});
