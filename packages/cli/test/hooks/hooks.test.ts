import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";

const text = (value: string): FauxResponse => ({ content: [{ type: "text", text: value }] });
const call = (name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [{ type: "toolCall", name, arguments: args }],
});

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** Writes a real shell script into the project's `.hooks/` and returns the command that runs it. */
async function script(name: string, body: string): Promise<string> {
  await mkdir(join(dirs.cwd, ".hooks"), { recursive: true });
  await writeFile(join(dirs.cwd, ".hooks", name), `#!/bin/sh\n${body}\n`);
  return `sh "$CLAUDE_PROJECT_DIR/.hooks/${name}"`;
}

/** The user's settings.json with these hooks (`{ event: [[matcher, command, timeout?], …] }`). */
async function userHooks(hooks: Record<string, [string | undefined, string, number?][]>): Promise<void> {
  const config = Object.fromEntries(
    Object.entries(hooks).map(([event, entries]) => [
      event,
      entries.map(([matcher, command, timeout]) => ({
        ...(matcher !== undefined ? { matcher } : {}),
        hooks: [{ type: "command", command, ...(timeout !== undefined ? { timeout } : {}) }],
      })),
    ]),
  );
  await writeFile(join(dirs.home, "settings.json"), JSON.stringify({ hooks: config }));
}

async function start(responses: FauxResponse[], options: { session?: "new" } = {}) {
  const faux = createFauxModel(responses);
  const created = await createAgentSession({
    cwd: dirs.cwd,
    gyreHome: dirs.home,
    model: faux.model,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home },
    ...(options.session ? { session: options.session } : {}),
  });
  return { faux, ...created };
}

/** The text of every tool result the model was sent in `context`. */
const toolResults = (context: Context | undefined) =>
  (context?.messages ?? [])
    .filter((message) => message.role === "toolResult")
    .map((message) => message.content.map((block) => (block.type === "text" ? block.text : "")).join(""));

const lastUserText = (context: Context | undefined) => {
  const users = (context?.messages ?? []).filter((message) => message.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
};

describe("PreToolUse", () => {
  it("blocks rm -rf with exit 2 and the model reads the guard's reason", async () => {
    const guard = await script(
      "guard.sh",
      'if grep -q "rm -rf"; then echo "rm -rf is not allowed in this project; delete files one by one" >&2; exit 2; fi',
    );
    await userHooks({ PreToolUse: [["Bash", guard]] });
    await mkdir(join(dirs.cwd, "build"));
    const { faux, session, dispose } = await start([call("bash", { command: "rm -rf build" }), text("ok")]);
    await session.prompt("clean up");
    await dispose();
    expect(existsSync(join(dirs.cwd, "build"))).toBe(true);
    expect(toolResults(faux.contexts[1])[0]).toContain("rm -rf is not allowed in this project");
  });

  it("denies a Write through JSON with the reason the model sees", async () => {
    const deny = await script(
      "deny.sh",
      'cat >/dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets/ is read-only for agents"}}\'',
    );
    await userHooks({ PreToolUse: [["Edit|Write", deny]] });
    const { faux, session, dispose } = await start([
      call("write", { path: "secrets/key.txt", content: "x" }),
      text("ok"),
    ]);
    await session.prompt("write the key");
    await dispose();
    expect(existsSync(join(dirs.cwd, "secrets", "key.txt"))).toBe(false);
    expect(toolResults(faux.contexts[1])[0]).toContain("secrets/ is read-only for agents");
  });

  it("rewrites a command through updatedInput, and the tool runs the new one", async () => {
    const rewrite = await script(
      "rewrite.sh",
      'cat >/dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten-by-hook"}}}\'',
    );
    await userHooks({ PreToolUse: [["Bash", rewrite]] });
    const { faux, session, dispose } = await start([call("bash", { command: "echo original" }), text("ok")]);
    await session.prompt("run it");
    await dispose();
    const [result] = toolResults(faux.contexts[1]);
    expect(result).toContain("rewritten-by-hook");
    expect(result).not.toContain("original");
  });

  it("blocks the call when the guard hangs past its timeout, and kills the hook's processes", async () => {
    const pidFile = join(dirs.cwd, "sleeper.pid");
    const hang = await script("hang.sh", `sleep 60 & echo $! > "${pidFile}"; wait`);
    await userHooks({ PreToolUse: [["Bash", hang, 1]] });
    const { faux, session, dispose } = await start([call("bash", { command: "echo hi" }), text("ok")]);
    const started = Date.now();
    await session.prompt("run it");
    const elapsed = Date.now() - started;
    await dispose();
    expect(elapsed).toBeLessThan(15_000);
    const [result] = toolResults(faux.contexts[1]);
    expect(result).toContain("timed out after 1 s");
    expect(result).toContain("so the call is blocked");
    expect(result).not.toMatch(/^hi/m);
    // Killed: gone, or a zombie where no init reaps orphans.
    const pid = Number(await readFile(pidFile, "utf8"));
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    expect(stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")).toBe(true);
  });
});

describe("failures and fan-out", () => {
  it("blocks the call when a guard crashes (exit 1), but a failing PostToolUse hook only tells the user", async () => {
    await userHooks({
      PreToolUse: [["Write", "cat >/dev/null; exit 1"]],
      PostToolUse: [["Bash", "echo broken >&2; exit 3"]],
    });
    const notices: string[] = [];
    const { faux, session, dispose } = await start([
      call("write", { path: "a.txt", content: "x" }),
      call("bash", { command: "echo still-ran" }),
      text("ok"),
    ]);
    session.subscribe((event) => {
      if (event.type === "notice") notices.push(event.message);
    });
    await session.prompt("go");
    await dispose();
    expect(existsSync(join(dirs.cwd, "a.txt"))).toBe(false);
    expect(toolResults(faux.contexts[1])[0]).toContain("exited with code 1, so the call is blocked");
    const bash = toolResults(faux.contexts[2])[1];
    expect(bash).toContain("still-ran");
    expect(bash).not.toContain("broken");
    expect(notices.some((notice) => notice.includes("exited with code 3: broken"))).toBe(true);
  });

  it("runs matching hooks in parallel and the same command once", async () => {
    const log = join(dirs.cwd, "runs.log");
    const slow = (tag: string) => `cat >/dev/null; sleep 1; echo ${tag} >> "${log}"`;
    await userHooks({
      PreToolUse: [
        ["Bash", slow("a")],
        [".*", slow("b")],
        ["Bash|Read", slow("a")],
        ["B.*", slow("c")],
      ],
    });
    const { session, dispose } = await start([call("bash", { command: "true" }), text("ok")]);
    const started = Date.now();
    await session.prompt("go");
    const elapsed = Date.now() - started;
    await dispose();
    expect((await readFile(log, "utf8")).trim().split("\n").sort()).toEqual(["a", "b", "c"]);
    // One after another they would take 3 s.
    expect(elapsed).toBeLessThan(2600);
  });
});

describe("PostToolUse", () => {
  it("runs a formatter after Edit|Write that changes the file, and its additionalContext reaches the model", async () => {
    const format = await script(
      "format.sh",
      [
        `file=$(sed -n 's/.*"file_path":"\\([^"]*\\)".*/\\1/p')`,
        `sed -i 's/var /let /g' "$file"`,
        `printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted %s"}}' "$file"`,
      ].join("\n"),
    );
    await userHooks({ PostToolUse: [["Edit|Write", format]] });
    const { faux, session, dispose } = await start([
      call("write", { path: "app.js", content: "var a = 1;\n" }),
      text("ok"),
    ]);
    await session.prompt("write app.js");
    await dispose();
    expect(await readFile(join(dirs.cwd, "app.js"), "utf8")).toBe("let a = 1;\n");
    expect(toolResults(faux.contexts[1])[0]).toContain(`formatted ${join(dirs.cwd, "app.js")}`);
  });
});

describe("matchers", () => {
  it("fires MultiEdit hooks for an edit with several changes, Edit hooks for every edit", async () => {
    const record = await script(
      "record.sh",
      `cat >> "$CLAUDE_PROJECT_DIR/$1.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/$1.jsonl"`,
    );
    await userHooks({
      PreToolUse: [
        ["MultiEdit", `${record} multi`],
        ["Edit|Write", `${record} any`],
      ],
    });
    await writeFile(join(dirs.cwd, "app.js"), "var a = 1;\nvar b = 2;\n");
    const two = [
      { oldText: "var a", newText: "let a" },
      { oldText: "var b", newText: "let b" },
    ];
    const { session, dispose } = await start([
      call("edit", { path: "app.js", edits: two }),
      call("edit", { path: "app.js", edits: [{ oldText: "let a", newText: "const a" }] }),
      text("ok"),
    ]);
    await session.prompt("modernise app.js");
    await dispose();
    const lines = async (name: string) =>
      (await readFile(join(dirs.cwd, `${name}.jsonl`), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
    const multi = await lines("multi");
    expect(multi).toHaveLength(1);
    expect(multi[0].tool_name).toBe("MultiEdit");
    expect(multi[0].tool_input.file_path).toBe(join(dirs.cwd, "app.js"));
    expect(multi[0].tool_input.edits).toEqual(
      two.map((change) => ({ ...change, old_string: change.oldText, new_string: change.newText })),
    );
    expect((await lines("any")).map((input) => input.tool_name)).toEqual(["MultiEdit", "Edit"]);
    expect(await readFile(join(dirs.cwd, "app.js"), "utf8")).toBe("const a = 1;\nlet b = 2;\n");
  });
});

describe("subagents", () => {
  it("fires PreToolUse and PostToolUse for a subagent's calls, and SubagentStop when it ends", async () => {
    const log = join(dirs.cwd, "events.log");
    const record = `jq -c '{event: .hook_event_name, tool: .tool_name}' >> "${log}"`;
    await userHooks({
      PreToolUse: [["Write", record]],
      PostToolUse: [["Write", record]],
      SubagentStop: [[undefined, record]],
    });
    const { session, dispose } = await start([
      call("task", { description: "write a note", prompt: "write note.md" }),
      call("write", { path: "note.md", content: "from the subagent\n" }),
      text("subagent done"),
      text("all done"),
    ]);
    await session.prompt("delegate it");
    await dispose();
    expect(await readFile(join(dirs.cwd, "note.md"), "utf8")).toBe("from the subagent\n");
    const events = (await readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events).toEqual([
      { event: "PreToolUse", tool: "Write" },
      { event: "PostToolUse", tool: "Write" },
      { event: "SubagentStop", tool: null },
    ]);
  });
});

describe("the review subagent", () => {
  it("fires PreToolUse, PostToolUse and PostToolUseFailure for the reviewer's calls", async () => {
    const record = await script(
      "record.sh",
      `cat >> "$CLAUDE_PROJECT_DIR/hooks.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/hooks.jsonl"`,
    );
    await userHooks({
      PreToolUse: [["Read", `${record} pre`]],
      PostToolUse: [["Read", `${record} post`]],
      PostToolUseFailure: [["Read", `${record} failure`]],
    });
    execFileSync("git", ["init", "-q"], { cwd: dirs.cwd });
    await writeFile(join(dirs.cwd, "a.txt"), "alpha\n");
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "0"], {
      cwd: dirs.cwd,
    });
    const { session, dispose } = await start([
      call("read", { path: "a.txt" }),
      call("read", { path: "missing.txt" }),
      text(JSON.stringify({ findings: [] })),
    ]);
    const review = await session.submit({ type: "review", uncommitted: true });
    await dispose();
    expect(review.findings).toEqual([]);
    const seen = (await readFile(join(dirs.cwd, "hooks.jsonl"), "utf8")).trim().split("\n");
    const brief = (input: { hook_event_name: string; tool_name: string; tool_input: { path: string } }) => ({
      e: input.hook_event_name,
      t: input.tool_name,
      p: input.tool_input.path,
    });
    expect(seen.map((line) => brief(JSON.parse(line)))).toEqual([
      { e: "PreToolUse", t: "Read", p: "a.txt" },
      { e: "PostToolUse", t: "Read", p: "a.txt" },
      { e: "PreToolUse", t: "Read", p: "missing.txt" },
      { e: "PostToolUseFailure", t: "Read", p: "missing.txt" },
    ]);
  });
});

describe("UserPromptSubmit", () => {
  it("adds its stdout as context under the prompt the model receives", async () => {
    const context = await script("context.sh", "cat >/dev/null; echo 'Sprint goal: ship hooks'");
    await userHooks({ UserPromptSubmit: [[undefined, context]] });
    const { faux, session, dispose } = await start([text("ok")]);
    await session.prompt("what now?");
    await dispose();
    const sent = lastUserText(faux.contexts[0]);
    expect(sent.startsWith("what now?")).toBe(true);
    expect(sent).toContain("Sprint goal: ship hooks");
  });

  it("blocks a prompt: the model is never called and the reason comes back", async () => {
    const block = await script(
      "block.sh",
      'if grep -q password; then echo "prompts must not contain passwords" >&2; exit 2; fi',
    );
    await userHooks({ UserPromptSubmit: [[undefined, block]] });
    const { faux, session, dispose } = await start([text("never")]);
    await expect(session.prompt("my password is hunter2")).rejects.toThrow("prompts must not contain passwords");
    await dispose();
    expect(faux.contexts).toHaveLength(0);
  });
});

describe("Stop", () => {
  it("makes the agent go on once with decision block, then lets it stop when stop_hook_active", async () => {
    const log = join(dirs.cwd, "stop.log");
    const stop = await script(
      "stop.sh",
      [
        "input=$(cat)",
        `echo "$input" >> "${log}"`,
        `case "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"run the tests before you stop"}';; esac`,
      ].join("\n"),
    );
    await userHooks({ Stop: [[undefined, stop]] });
    const { faux, session, dispose } = await start([text("done"), text("tests pass, done")]);
    await session.prompt("fix it");
    await dispose();
    expect(faux.contexts).toHaveLength(2);
    expect(lastUserText(faux.contexts[1])).toContain("run the tests before you stop");
    expect(session.getLastAssistantText()).toBe("tests pass, done");
    const calls = (await readFile(log, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(calls.map((input) => input.stop_hook_active)).toEqual([false, true]);
  });
});

describe("SessionStart and SessionEnd", () => {
  it("puts SessionStart's output in the model's context and runs SessionEnd on dispose", async () => {
    const begin = await script("begin.sh", "cat >/dev/null; echo 'This project uses pnpm, never npm.'");
    const end = await script("end.sh", `cat > "$CLAUDE_PROJECT_DIR/ended.json"`);
    await userHooks({ SessionStart: [["startup", begin]], SessionEnd: [[undefined, end]] });
    const { faux, session, dispose } = await start([text("ok")]);
    await session.prompt("hello");
    expect(existsSync(join(dirs.cwd, "ended.json"))).toBe(false);
    await dispose();
    expect(faux.contexts[0]?.systemPrompt).toContain("This project uses pnpm, never npm.");
    const ended = JSON.parse(await readFile(join(dirs.cwd, "ended.json"), "utf8"));
    expect(ended).toMatchObject({ hook_event_name: "SessionEnd", reason: "other" });
  });
});

describe("stdin JSON", () => {
  it("gives PreToolUse and PostToolUse Claude Code's fields, field by field", async () => {
    const record = await script(
      "record.sh",
      `cat > "$CLAUDE_PROJECT_DIR/$1.json"; echo "$GYRE_PROJECT_DIR" > "$CLAUDE_PROJECT_DIR/$1.env"`,
    );
    await userHooks({ PreToolUse: [["Write", `${record} pre`]], PostToolUse: [["Write", `${record} post`]] });
    const { session, dispose } = await start([call("write", { path: "notes.md", content: "hi\n" }), text("ok")], {
      session: "new",
    });
    await session.prompt("write notes");
    const { sessionId, sessionFile } = session.state;
    await dispose();
    const pre = JSON.parse(await readFile(join(dirs.cwd, "pre.json"), "utf8"));
    const post = JSON.parse(await readFile(join(dirs.cwd, "post.json"), "utf8"));
    expect(pre.session_id).toBe(sessionId);
    expect(pre.transcript_path).toBe(sessionFile);
    expect(pre.cwd).toBe(dirs.cwd);
    expect(pre.hook_event_name).toBe("PreToolUse");
    expect(pre.permission_mode).toBe("default");
    expect(pre.tool_name).toBe("Write");
    expect(pre.tool_input.file_path).toBe(join(dirs.cwd, "notes.md"));
    expect(pre.tool_input.content).toBe("hi\n");
    expect(typeof pre.tool_use_id).toBe("string");
    expect(post.hook_event_name).toBe("PostToolUse");
    expect(post.tool_use_id).toBe(pre.tool_use_id);
    expect(post.tool_input).toEqual(pre.tool_input);
    expect(post.tool_response).toMatchObject({
      success: true,
      isError: false,
      filePath: join(dirs.cwd, "notes.md"),
      type: "create",
      content: "hi\n",
    });
    expect(typeof post.tool_response.output).toBe("string");
    expect((await readFile(join(dirs.cwd, "pre.env"), "utf8")).trim()).toBe(dirs.cwd);
  });
});

describe("stdin JSON of the other events", () => {
  it("gives PostToolUse Bash, UserPromptSubmit, Stop and SessionStart Claude Code's fields, field by field", async () => {
    const record = await script("record.sh", `cat > "$CLAUDE_PROJECT_DIR/$1.json"`);
    await userHooks({
      PostToolUse: [["Bash", `${record} bash`]],
      UserPromptSubmit: [[undefined, `${record} prompt`]],
      Stop: [[undefined, `${record} stop`]],
      SessionStart: [[undefined, `${record} start`]],
    });
    const { session, dispose } = await start([call("bash", { command: "echo out; echo err >&2" }), text("done")], {
      session: "new",
    });
    await session.prompt("run it");
    const { sessionId, sessionFile } = session.state;
    await dispose();
    const read = async (name: string) => JSON.parse(await readFile(join(dirs.cwd, `${name}.json`), "utf8"));
    const common = (event: string) => ({
      session_id: sessionId,
      transcript_path: sessionFile,
      cwd: dirs.cwd,
      hook_event_name: event,
      permission_mode: "default",
    });
    const bash = await read("bash");
    expect(bash).toMatchObject(common("PostToolUse"));
    expect(bash.tool_name).toBe("Bash");
    expect(bash.tool_input).toEqual({ command: "echo out; echo err >&2" });
    expect(typeof bash.tool_use_id).toBe("string");
    const response = bash.tool_response;
    expect(response.stdout).toContain("out");
    expect(response.stdout).toContain("err");
    expect(response).toMatchObject({ stderr: "", interrupted: false, isImage: false, success: true });
    expect(response.details).toMatchObject({ exitCode: 0 });
    expect(await read("prompt")).toEqual({ ...common("UserPromptSubmit"), prompt: "run it" });
    expect(await read("stop")).toEqual({ ...common("Stop"), stop_hook_active: false });
    expect(await read("start")).toEqual({ ...common("SessionStart"), source: "startup" });
  });
});

describe("PostToolUseFailure", () => {
  it("fires instead of PostToolUse for a call that failed, with the error, and its context reaches the model", async () => {
    const record = await script(
      "record.sh",
      `cat > "$CLAUDE_PROJECT_DIR/$1.json"; [ "$1" = failure ] && echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"Create the file with write first."}}'; exit 0`,
    );
    await userHooks({ PostToolUse: [["Edit", `${record} post`]], PostToolUseFailure: [["Edit", `${record} failure`]] });
    const missing = { path: "missing.md", edits: [{ oldText: "a", newText: "b" }] };
    const { faux, session, dispose } = await start([call("edit", missing), text("ok")]);
    await session.prompt("edit a file that is not there");
    await dispose();
    expect(existsSync(join(dirs.cwd, "post.json"))).toBe(false);
    const failure = JSON.parse(await readFile(join(dirs.cwd, "failure.json"), "utf8"));
    expect(failure).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "Edit", is_interrupt: false });
    expect(failure.tool_input.file_path).toBe(join(dirs.cwd, "missing.md"));
    expect(failure.error).toMatch(/missing\.md/);
    expect(failure.tool_response).toBeUndefined();
    expect(JSON.stringify(faux.contexts[1]?.messages.at(-1))).toContain("Create the file with write first.");
  });
});

describe("where hooks come from", () => {
  it("runs a project's hooks only once the folder is trusted", async () => {
    const marker = join(dirs.cwd, "project-hook-ran");
    await mkdir(join(dirs.cwd, ".gyre"));
    const hooks = { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch "${marker}"` }] }] };
    await writeFile(join(dirs.cwd, ".gyre", "settings.json"), JSON.stringify({ hooks }));
    const untrusted = await start([text("ok")]);
    await untrusted.session.prompt("hi");
    await untrusted.dispose();
    expect(existsSync(marker)).toBe(false);
    const faux = createFauxModel([text("ok")]);
    const trusted = await createAgentSession({
      cwd: dirs.cwd,
      gyreHome: dirs.home,
      model: faux.model,
      trust: true,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home },
    });
    await trusted.session.prompt("hi");
    await trusted.dispose();
    expect(existsSync(marker)).toBe(true);
  });
});
