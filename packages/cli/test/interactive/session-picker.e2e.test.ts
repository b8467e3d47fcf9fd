import { access, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** A two-message session of `cwd` written by the session code itself, started in interactive mode. */
async function writeSession(home: string, cwd: string, question: string): Promise<string> {
  const store = SessionManager.create({ sessionsDir: join(home, "sessions"), cwd, mode: "interactive" });
  store.appendMessage({ role: "user", content: question, timestamp: Date.now() });
  store.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "an answer" }],
    api: "openai-completions",
    provider: "openai",
    model: "gpt-4o",
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  });
  await store.flush();
  await store.close();
  return store.path as string;
}

async function setupSessions({ cwd, home, url }: { cwd: string; home: string; url: string }) {
  await writeSession(home, cwd, "interactive-question about the parser");
  const other = join(cwd, "..", "other-project");
  await mkdir(other);
  await writeSession(home, other, "other-project-question");
  const env = cliEnv(home, { OPENAI_BASE_URL: `${url}/v1` });
  await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", "headless-question"], { cwd, env });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("the session picker in tmux", () => {
  it("shows count, model, size and age; hides -p runs until Ctrl+T; Ctrl+P lists every project; typing searches", async () => {
    const { tmux } = await startGyre(() => ({ text: "ok" }), { width: 120, setup: setupSessions });
    await submit(tmux, "/resume");
    const screen = await tmux.waitFor("interactive-question");
    expect(screen).toMatch(/2 messages · openai\/gpt-4o · \d+ (B|KB) · (just now|1m ago)/);
    expect(screen).toContain("this folder · 1 -p run hidden");
    expect(screen).not.toContain("headless-question");
    expect(screen).not.toContain("other-project-question");
    await tmux.send(["C-t"]);
    expect(await tmux.waitFor("headless-question")).toMatch(/headless-question.*· -p/);
    await tmux.send(["C-p"]);
    const everywhere = await tmux.waitFor("other-project-question");
    expect(everywhere).toContain("all projects");
    expect(everywhere).toMatch(/other-project-question.*other-project/);
    await tmux.type("other-proj");
    await tmux.waitFor((text) => !text.includes("interactive-question") && text.includes("other-project-question"));
    await tmux.send(["Enter"]);
    await tmux.waitFor("Resumed session");
  });

  it("renames with Ctrl+R and deletes with Ctrl+D only after a yes", async () => {
    let path = "";
    const { tmux } = await startGyre(() => ({ text: "ok" }), {
      width: 120,
      setup: async ({ cwd, home }) => {
        path = await writeSession(home, cwd, "session-to-rename");
      },
    });
    await submit(tmux, "/resume");
    await tmux.waitFor("session-to-rename");
    await tmux.send(["C-r"]);
    await tmux.waitFor("New name");
    await tmux.type("renamed-by-picker");
    await tmux.send(["Enter"]);
    await tmux.waitFor('Renamed to "renamed-by-picker".');
    expect(await readFile(path, "utf8")).toContain('"type":"session_info"');
    await tmux.send(["C-d"]);
    await tmux.waitFor('Delete "renamed-by-picker" for good? y/n');
    await tmux.type("n");
    await tmux.waitFor("Not deleted.");
    expect(await exists(path)).toBe(true);
    await tmux.send(["C-d"]);
    await tmux.waitFor("for good? y/n");
    await tmux.type("y");
    await tmux.waitFor('Deleted "renamed-by-picker".');
    expect(await exists(path)).toBe(false);
    expect(await tmux.capture()).toContain("No other sessions in this folder");
  });

  it("opens from gyre --resume and continues the chosen session", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "continued-answer" }), {
      width: 120,
      args: ["--resume"],
      setup: async ({ cwd, home }) => {
        await writeSession(home, cwd, "resume-me-question");
      },
    });
    await tmux.waitFor("resume-me-question");
    await tmux.send(["Enter"]);
    await tmux.waitFor("Resumed session");
    await submit(tmux, "next question");
    await tmux.waitFor("continued-answer");
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("resume-me-question");
  });
});
