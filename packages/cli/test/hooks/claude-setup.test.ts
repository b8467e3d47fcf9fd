import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Context } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adaptClaudeAgents } from "../../src/core/claude-compat/claude-agents.js";
import { loadAgentDefinitions } from "../../src/core/subagents/agent-definitions.js";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";
import { put, toolResultTexts } from "./faux-session.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** A small Claude Code setup in the shape its docs show: user and project files, commands, agents, skills. */
async function writeClaudeSetup(): Promise<void> {
  const user = join(dirs.home, ".claude");
  const project = join(dirs.cwd, ".claude");
  await put(join(user, "CLAUDE.md"), "User memory: always answer in British English.\n");
  await put(join(dirs.cwd, "CLAUDE.md"), "Project memory: this repository uses pnpm.\n");
  await put(join(dirs.cwd, "AGENTS.md"), "Agents file: run the linter before committing.\n");
  await put(
    join(project, "settings.json"),
    JSON.stringify({
      permissions: { allow: ["Bash(npm test:*)"], deny: ["Bash(rm -rf:*)", "Read(./.env)"] },
      hooks: {
        PostToolUse: [
          { matcher: "Write|Edit", hooks: [{ type: "command", command: 'touch "$CLAUDE_PROJECT_DIR/formatted"' }] },
        ],
      },
    }),
  );
  await put(
    join(project, "settings.local.json"),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'Local note: staging is down.'" }] }] },
    }),
  );
  await put(
    join(project, "commands", "review.md"),
    "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS carefully; start with $1.\n",
  );
  await put(
    join(project, "agents", "reader.md"),
    "---\nname: reader\ndescription: Reads code and reports findings\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou read code.\n",
  );
  await put(
    join(project, "skills", "deploy", "SKILL.md"),
    "---\nname: deploy\ndescription: Deploys the app to staging\n---\nRun the deploy script.\n",
  );
}

const userText = (context: Context | undefined) => {
  const content = (context?.messages ?? []).filter((message) => message.role === "user").at(-1)?.content;
  return typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
};
const results = toolResultTexts;

async function start(responses: FauxResponse[], options: { trust: boolean; compat: boolean }) {
  const faux = createFauxModel(responses);
  const created = await createAgentSession({
    cwd: dirs.cwd,
    gyreHome: join(dirs.home, ".gyre"),
    model: faux.model,
    trust: options.trust,
    settings: { claudeCompat: options.compat },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home },
  });
  return { faux, ...created };
}

describe("a Claude Code setup under --claude-compat", () => {
  it("runs its CLAUDE.md files, commands, agents, skills, hooks and rules unchanged", async () => {
    await writeClaudeSetup();
    const { faux, session, dispose } = await start(
      [
        { content: [{ type: "toolCall", name: "bash", arguments: { command: "rm -rf src" } }] },
        { content: [{ type: "toolCall", name: "write", arguments: { path: "notes.md", content: "x\n" } }] },
        { content: [{ type: "text", text: "done" }] },
      ],
      { trust: true, compat: true },
    );
    await session.prompt("/review src/app.ts now");
    await dispose();
    const [first] = faux.contexts;
    const system = first?.systemPrompt ?? "";
    expect(system).toContain("User memory: always answer in British English.");
    expect(system).toContain("Project memory: this repository uses pnpm.");
    expect(system).toContain("Agents file: run the linter before committing.");
    expect(system).toContain("deploy");
    const sent = userText(first);
    expect(sent).toContain("Review src/app.ts now carefully; start with src/app.ts.");
    expect(sent).toContain("Local note: staging is down.");
    const task = first?.tools?.find((tool) => tool.name === "task");
    expect(task?.description).toContain("reader");
    expect(results(faux.contexts[1])[0]).toContain("Denied by the permission rules");
    expect(existsSync(join(dirs.cwd, "formatted"))).toBe(true);
  });

  it("reads only the user's files in an untrusted folder, and nothing without the option", async () => {
    await writeClaudeSetup();
    const untrusted = await start([{ content: [{ type: "text", text: "ok" }] }], { trust: false, compat: true });
    await untrusted.session.prompt("/review a.ts");
    await untrusted.dispose();
    const system = untrusted.faux.contexts[0]?.systemPrompt ?? "";
    expect(system).toContain("User memory: always answer in British English.");
    expect(system).not.toContain("Project memory");
    expect(userText(untrusted.faux.contexts[0])).not.toContain("Local note");
    expect(userText(untrusted.faux.contexts[0])).toBe("/review a.ts");

    const off = await start([{ content: [{ type: "text", text: "ok" }] }], { trust: true, compat: false });
    await off.session.prompt("hello");
    await off.dispose();
    expect(off.faux.contexts[0]?.systemPrompt ?? "").not.toContain("User memory");
    expect(userText(off.faux.contexts[0])).toBe("hello");
  });

  it("stops a gyre write with a Claude deny Edit rule, in every path form", async () => {
    const outside = join(dirs.home, "outside");
    await mkdir(outside, { recursive: true });
    await put(
      join(dirs.cwd, ".claude", "settings.json"),
      JSON.stringify({
        permissions: {
          deny: ["Edit(./secret.txt)", "Edit(/config/**)", `Edit(/${outside}/**)`, "Edit(~/dotfile)"],
          allow: ["Write(allowed-by-write.txt)"],
        },
      }),
    );
    const targets = ["secret.txt", "config/app.json", join(outside, "x.txt"), join(dirs.home, "dotfile")];
    const { faux, session, dispose, notices } = await start(
      [
        ...targets.map(
          (path): FauxResponse => ({
            content: [{ type: "toolCall", name: "write", arguments: { path, content: "leak\n" } }],
          }),
        ),
        { content: [{ type: "toolCall", name: "write", arguments: { path: "free.txt", content: "ok\n" } }] },
        { content: [{ type: "text", text: "done" }] },
      ],
      { trust: true, compat: true },
    );
    await session.prompt("write them");
    await dispose();
    const seen = results(faux.contexts.at(-1));
    expect(seen).toHaveLength(5);
    for (const result of seen.slice(0, 4)) expect(result).toContain("Denied by the permission rules");
    for (const path of targets) expect(existsSync(resolve(dirs.cwd, path))).toBe(false);
    expect(existsSync(join(dirs.cwd, "free.txt"))).toBe(true);
    expect(notices.map((notice) => notice.text).join("\n")).toContain(
      'permissions.allow rule "Write(allowed-by-write.txt)" is ignored',
    );
  });

  it("loads the files CLAUDE.md imports with @path, the user's and the project's, not those in code", async () => {
    await put(join(dirs.home, ".claude", "CLAUDE.md"), "# Me\n- personal: @~/.claude/personal.md\n");
    await put(join(dirs.home, ".claude", "personal.md"), "Personal import: sign commits.\n");
    // No AGENTS.md here: gyre reads this CLAUDE.md itself, and its imports still count.
    await put(join(dirs.cwd, "CLAUDE.md"), "See @docs/conventions.md for style. Not `@docs/secret.md`.\n");
    await put(join(dirs.cwd, "docs", "conventions.md"), "Conventions import: tabs. More in @more.md\n");
    await put(join(dirs.cwd, "docs", "more.md"), "Nested import: no semicolons.\n");
    await put(join(dirs.cwd, "docs", "secret.md"), "Code-span import: must not load.\n");
    const { faux, session, dispose } = await start([{ content: [{ type: "text", text: "ok" }] }], {
      trust: true,
      compat: true,
    });
    await session.prompt("hello");
    await dispose();
    const system = faux.contexts[0]?.systemPrompt ?? "";
    for (const line of ["Personal import: sign commits.", "Conventions import: tabs.", "Nested import: no semicolons."])
      expect(system).toContain(line);
    expect(system).not.toContain("Code-span import");
    expect(system.indexOf("Conventions import")).toBeLessThan(system.indexOf("Nested import"));
  });

  it("gives a .claude/agents definition gyre's tool names and the parent's model for an alias", async () => {
    await writeClaudeSetup();
    const agentDir = join(dirs.cwd, ".claude", "agents");
    const { definitions } = await loadAgentDefinitions([agentDir]);
    const reader = adaptClaudeAgents(definitions, [agentDir]).find((definition) => definition.name === "reader");
    expect(reader?.tools).toEqual(["read", "grep", "find"]);
    expect(reader?.model).toBeUndefined();
    expect(reader?.systemPrompt).toBe("You read code.");
  });

  it("reads CLAUDE.md, .claude/settings.json hooks and rules, and .claude/commands again", async () => {
    const project = join(dirs.cwd, ".claude");
    await put(join(dirs.cwd, "CLAUDE.md"), "Project memory, first version.\n");
    await put(join(project, "commands", "old.md"), "The old command.\n");
    await mkdir(join(dirs.cwd, "junk"));
    const { faux, session, dispose } = await start(
      [
        { content: [{ type: "text", text: "before" }] },
        { content: [{ type: "toolCall", name: "bash", arguments: { command: "rm -r junk" } }] },
        { content: [{ type: "text", text: "after" }] },
      ],
      { trust: true, compat: true },
    );
    await session.prompt("hello");

    await put(join(dirs.cwd, "CLAUDE.md"), "Project memory, second version.\n");
    await rm(join(project, "commands", "old.md"));
    await put(join(project, "commands", "greet.md"), "---\ndescription: Greets\n---\nSay hello to $1.\n");
    await put(
      join(project, "settings.json"),
      JSON.stringify({
        permissions: { deny: ["Bash(rm:*)"] },
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'Note from a new hook.'" }] }] },
      }),
    );
    const { changes } = await session.submit({ type: "reload" });
    expect(changes).toContain("prompt templates: +greet -old");
    expect(changes.some((line) => line.startsWith("context files:"))).toBe(true);
    expect(changes).toContain("hooks: 1 command(s) (UserPromptSubmit)");

    await session.prompt("/greet Ada");
    await dispose();
    const [first, second, third] = faux.contexts;
    expect(first?.systemPrompt).toContain("Project memory, first version.");
    expect(second?.systemPrompt).toContain("Project memory, second version.");
    expect(second?.systemPrompt).not.toContain("first version");
    const sent = userText(second);
    expect(sent).toContain("Say hello to Ada.");
    expect(sent).toContain("Note from a new hook.");
    // The new deny rule holds from the next call on.
    expect(results(third).at(-1)).toContain("Denied by the permission rules");
    expect(existsSync(join(dirs.cwd, "junk"))).toBe(true);
  });
});
