import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentTool } from "@gyre/agent";
import { type Context, type StreamFunction, stream } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/core/compaction/summarise-prompt.js";
import type { SessionEvent } from "../../src/core/session-events.js";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "./temp-dirs.js";

const text = (value: string): FauxResponse => ({ content: [{ type: "text", text: value }] });

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await dirs.remove();
});

describe("createAgentSession", () => {
  it("runs a prompt that reads and edits a real file, writing nothing to stdout or stderr", async () => {
    const file = join(dirs.cwd, "notes.txt");
    await writeFile(file, "alpha\nbeta\n");
    const faux = createFauxModel([
      { content: [{ type: "toolCall", name: "read", arguments: { path: "notes.txt" } }] },
      {
        content: [
          {
            type: "toolCall",
            name: "edit",
            arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] },
          },
        ],
      },
      text("Replaced beta with gamma."),
    ]);
    const stdout = vi.spyOn(process.stdout, "write");
    const stderr = vi.spyOn(process.stderr, "write");
    const { session, dispose } = await createAgentSession({ cwd: dirs.cwd, gyreHome: dirs.home, model: faux.model });
    const result = await session.prompt("Rename beta to gamma in notes.txt.");
    await dispose();
    expect(result.reason).toBe("stop");
    expect(await readFile(file, "utf8")).toBe("alpha\ngamma\n");
    // The model saw the file's text in the read result before it edited.
    expect(JSON.stringify(faux.contexts[1]?.messages)).toContain("beta");
    expect(session.getLastAssistantText()).toBe("Replaced beta with gamma.");
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
    // "memory" is the default: no session file; the edit's checkpoint (docs/design/rewind.md) is all the home holds.
    expect(await readdir(dirs.home)).toEqual(["checkpoints"]);
  });

  it("persists a new session under gyreHome and continues it in a second call", async () => {
    const first = createFauxModel([text("first answer")]);
    const created = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: first.model,
      session: "new",
    });
    await created.session.prompt("remember the word kumquat");
    const sessionFile = created.session.state.sessionFile;
    await created.dispose();
    expect(sessionFile?.startsWith(join(dirs.home, "sessions"))).toBe(true);
    expect(await readFile(sessionFile ?? "", "utf8")).toContain("kumquat");

    const second = createFauxModel([text("second answer")]);
    const resumed = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: second.model,
      session: { continue: true },
    });
    expect(resumed.session.state.sessionFile).toBe(sessionFile);
    await resumed.session.prompt("which word?");
    await resumed.dispose();
    const sent = JSON.stringify(second.contexts[0]?.messages);
    expect(sent).toContain("kumquat");
    expect(sent).toContain("first answer");
    const reopened = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: second.model,
      session: { open: sessionFile ?? "" },
    });
    expect(reopened.session.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    await reopened.dispose();
  });

  it("honours the compaction setting and sends the summary request through streamFn", async () => {
    const run = async (compaction: { enabled: boolean }) => {
      const summaries: Context[] = [];
      const faux = createFauxModel(
        [
          (context) =>
            context.systemPrompt === SUMMARY_SYSTEM_PROMPT
              ? text("Summary of the work.")
              : text(`answer ${"z".repeat(200)}`),
        ],
        { whenExhausted: "repeat-last" },
      );
      const streamFn: StreamFunction = (model, context, options) => {
        if (context.systemPrompt === SUMMARY_SYSTEM_PROMPT) summaries.push(context);
        return stream(model, context, options);
      };
      const { session, dispose } = await createAgentSession({
        cwd: dirs.cwd,
        gyreHome: dirs.home,
        model: faux.model,
        streamFn,
        // A reserve of nearly the whole window: any real context is near it.
        settings: { compaction: { ...compaction, reserveTokens: 127_990, keepRecentTokens: 10 } },
      });
      const events: SessionEvent[] = [];
      session.subscribe((event) => events.push(event));
      for (const prompt of ["one", "two", "three"]) await session.prompt(`${prompt} ${"q".repeat(200)}`);
      await dispose();
      return { summaries, compactions: events.filter((event) => event.type === "compaction_end") };
    };
    const enabled = await run({ enabled: true });
    // Before the second prompt there is one turn, too little to summarise; before the third there is enough.
    const done = enabled.compactions.filter((event) => !("error" in event));
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((event) => event.type === "compaction_end" && event.reason === "threshold")).toBe(true);
    expect(enabled.summaries.length).toBe(done.length);
    const disabled = await run({ enabled: false });
    expect(disabled.compactions).toEqual([]);
    expect(disabled.summaries).toEqual([]);
  });

  it("gives the model a custom tool, lists it in the system prompt, and runs it", async () => {
    const calls: string[] = [];
    const shout: AgentTool<ReturnType<typeof shoutParameters>, { length: number }> = {
      name: "shout",
      label: "Shout",
      description: "Returns the text in capitals.\nSecond line stays out of the prompt.",
      parameters: shoutParameters(),
      execute: async ({ text: value }) => {
        calls.push(value);
        return { content: [{ type: "text", text: value.toUpperCase() }], details: { length: value.length } };
      },
    };
    const faux = createFauxModel([
      { content: [{ type: "toolCall", name: "shout", arguments: { text: "quiet please" } }] },
      text("done"),
    ]);
    const { session, dispose } = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: faux.model,
      tools: ["read"],
      customTools: [shout],
    });
    await session.prompt("shout it");
    await dispose();
    expect(calls).toEqual(["quiet please"]);
    expect(faux.contexts[0]?.tools?.map((tool) => tool.name)).toEqual(["read", "shout"]);
    expect(faux.contexts[0]?.systemPrompt).toContain("shout: Returns the text in capitals.");
    expect(faux.contexts[0]?.systemPrompt).not.toContain("Second line");
    expect(JSON.stringify(faux.contexts[1]?.messages)).toContain("QUIET PLEASE");
  });

  it("throws a CliError naming what to set when no key is found, instead of exiting", async () => {
    const exit = vi.spyOn(process, "exit");
    await expect(
      createAgentSession({ cwd: dirs.cwd, gyreHome: dirs.home, provider: "anthropic", env: {} }),
    ).rejects.toMatchObject({
      name: "CliError",
      code: "bad_usage",
      message: expect.stringContaining("ANTHROPIC_API_KEY"),
    });
    expect(exit).not.toHaveBeenCalled();
  });

  it("applies systemPrompt, appendSystemPrompt and thinkingLevel", async () => {
    const faux = createFauxModel([text("ok")]);
    const { session, dispose } = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: faux.model,
      systemPrompt: "You are the test harness.",
      appendSystemPrompt: "Always answer ok.",
      thinkingLevel: "high",
      tools: "none",
    });
    await session.prompt("hi");
    await dispose();
    expect(session.state.thinkingLevel).toBe("high");
    expect(faux.contexts[0]?.systemPrompt).toContain("You are the test harness.");
    expect(faux.contexts[0]?.systemPrompt).toContain("Always answer ok.");
    expect(faux.contexts[0]?.tools ?? []).toEqual([]);
  });
});

function shoutParameters() {
  return Type.Object({ text: Type.String() });
}
