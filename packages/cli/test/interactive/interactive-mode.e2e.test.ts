import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWorkspace } from "../helpers/run-cli.js";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";
import { writeHistorySession } from "./history-session.js";

afterEach(stopGyres);

function lastUserText(body: { messages?: { role: string; content: unknown }[] }): string {
  const users = (body.messages ?? []).filter((message) => message.role === "user");
  return JSON.stringify(users.at(-1)?.content ?? "");
}

describe("interactive mode in tmux", () => {
  it("streams an answer as Markdown and shows usage in the footer", async () => {
    const { tmux } = await startGyre(() => ({
      text: "Here is **bold** and a list:\n\n- alpha\n- omega-marker\n",
      chunkSize: 3,
    }));
    await tmux.type("hello");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("omega-marker");
    expect(screen).toContain("› hello");
    expect(screen).toContain("Here is bold and a list");
    expect(screen).not.toContain("**bold**");
    await tmux.waitFor("↑100 ↓20");
  });

  it("renders a tool call and its result, then the answer", async () => {
    const { tmux } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo tool-output-42" } }] }
        : { text: "after-tool-answer" },
    );
    await tmux.type("run it");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("after-tool-answer");
    expect(screen).toContain("● bash echo tool-output-42");
    expect(screen).toMatch(/^\s+tool-output-42$/m);
    expect(screen).toContain("exit 0");
  });

  it("aborts a run with Esc, keeps the partial answer, and takes the next prompt", async () => {
    const { tmux } = await startGyre(({ index }) =>
      index === 0
        ? { text: `partial-start ${"word ".repeat(400)}`, chunkSize: 5, delayMs: 20 }
        : { text: "second-answer" },
    );
    await tmux.type("long one");
    await tmux.send(["Enter"]);
    await tmux.waitFor("partial-start");
    await tmux.send(["Escape"]);
    const aborted = await tmux.waitFor("aborted");
    expect(aborted).toContain("partial-start");
    await tmux.waitFor((screen) => !screen.includes("working"));
    await tmux.type("next");
    await tmux.send(["Enter"]);
    await tmux.waitFor("second-answer");
  });

  it("delivers a steering message typed while the agent works", async () => {
    const { tmux, server } = await startGyre(({ index }) =>
      index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "sleep 1.5; echo slept" } }] }
        : { text: `reply-${index}` },
    );
    await tmux.type("start");
    await tmux.send(["Enter"]);
    await tmux.waitFor("● bash sleep");
    await tmux.type("steer-me-now");
    await tmux.send(["Enter"]);
    await tmux.waitFor("steer (pending): steer-me-now");
    await tmux.waitFor("reply-1");
    expect(lastUserText(server.requests[1]?.body ?? {})).toContain("steer-me-now");
    const screen = await tmux.waitFor((text) => !text.includes("(pending)"));
    expect(screen).toContain("› steer-me-now");
  });

  it("switches the model with /model", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "ok-model" }));
    await tmux.type("/model");
    await tmux.send(["Enter"]);
    await tmux.waitFor("type to filter");
    await tmux.type("gpt-4o-mini");
    // Each model with its price; providers without a key (none is set here) are left out.
    const listed = await tmux.waitFor("$0.15/$0.6 per M tokens");
    expect(listed).toContain("openai/gpt-4o-mini");
    await tmux.send(["C-u"]);
    await tmux.type("claude");
    await tmux.waitFor("No matching");
    await tmux.send(["C-u"]);
    await tmux.type("gpt-4o-mini");
    await tmux.waitFor("openai/gpt-4o-mini");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Model: openai/gpt-4o-mini");
    await tmux.type("hi");
    await tmux.send(["Enter"]);
    await tmux.waitFor("ok-model");
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("starts a new session with /new and goes back with /resume", async () => {
    const { tmux, server } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }));
    await submit(tmux, "first-session-question");
    await tmux.waitFor("answer-number-0");
    await submit(tmux, "/new");
    const fresh = await tmux.waitFor("New session started.");
    expect(fresh).not.toContain("first-session-question");
    await submit(tmux, "second-session-question");
    await tmux.waitFor("answer-number-1");
    expect((server.requests[1]?.body.messages ?? []).filter((message) => message.role === "user")).toHaveLength(1);
    await submit(tmux, "/resume");
    await tmux.waitFor("Resume session");
    await tmux.waitFor("first-session-question");
    await tmux.send(["Enter"]);
    const resumed = await tmux.waitFor("Resumed session");
    expect(resumed).toContain("answer-number-0");
    expect(resumed).not.toContain("second-session-question");
  });

  it("runs a command typed once the answer is shown, while the run is still being written away", async () => {
    // The extension holds the run's end for 2.5 s, as a slow disk or checkpoint would.
    const { tmux } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }), {
      args: ["-e", "slow-end.ts"],
      setup: ({ cwd }) =>
        writeFile(
          join(cwd, "slow-end.ts"),
          'export default (api) => api.on("agent_end", () => new Promise((resolve) => setTimeout(resolve, 2500)));\n',
        ),
    });
    await submit(tmux, "first-session-question");
    await tmux.waitFor("answer-number-0");
    await submit(tmux, "/new");
    // Past a second of waiting, it says what it waits for.
    await tmux.waitFor("/new runs once the agent finishes (Esc stops the agent).");
    const fresh = await tmux.waitFor("New session started.");
    expect(fresh).not.toContain("cannot run while the agent works");
    expect(fresh).not.toContain("first-session-question");
  });

  it("refuses /new while the model is still answering, and the run goes on", async () => {
    const { tmux } = await startGyre(() => ({
      text: `long-start ${"word ".repeat(150)} long-end`,
      chunkSize: 5,
      delayMs: 20,
    }));
    await submit(tmux, "long one");
    await tmux.waitFor("long-start");
    await submit(tmux, "/new");
    await tmux.waitFor("/new cannot run while the agent works; wait or press Esc to abort first.");
    const done = await tmux.waitFor("long-end");
    expect(done).not.toContain("New session started.");
    expect(done).toContain("› long one");
  });

  it("says so for an unknown command", async () => {
    const { tmux } = await startGyre(() => ({ text: "unused" }));
    await tmux.type("/frobnicate");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Unknown command /frobnicate");
  });
});

/** Bytes the terminal received while a 100 KB answer streamed into a session of `history` messages. */
async function measureAnswerBytes(history: number): Promise<number> {
  const answer = Array.from({ length: 2000 }, (_, line) => `line ${line} ${"x".repeat(40)}`).join("\n\n");
  const { cwd } = await createWorkspace();
  const sessionFile = await writeHistorySession({ path: join(cwd, "history.jsonl"), cwd, count: history });
  const { tmux } = await startGyre(() => ({ text: `${answer}\nend-of-answer`, chunkSize: 2048 }), {
    args: ["--session", sessionFile],
  });
  const log = join(cwd, "pane.log");
  await tmux.type("go");
  await new Promise<void>((resolve, reject) => {
    import("node:child_process").then(({ execFile }) =>
      execFile("tmux", ["pipe-pane", "-o", "-t", tmux.name, `cat >> '${log}'`], (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  });
  await tmux.send(["Enter"]);
  await tmux.waitFor("end-of-answer", 30_000);
  await tmux.waitFor((screen) => !screen.includes("working"), 10_000);
  const bytes = (await stat(log)).size;
  expect((await readFile(log, "utf8")).length).toBeGreaterThan(0);
  return bytes;
}

describe("redraw cost", () => {
  it("streams a 100 KB answer with the same terminal output whatever the session length", async () => {
    const short = await measureAnswerBytes(0);
    const long = await measureAnswerBytes(400);
    // Only changed lines are written: history above the screen is never redrawn.
    expect(long, `bytes: ${short} with no history, ${long} with 400 messages`).toBeLessThan(short * 1.3 + 20_000);
    expect(short).toBeLessThan(1_500_000);
  }, 60_000);
});
