import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createModelRegistry } from "@gyre/ai";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";
import { answeringUser, startFauxSession } from "./faux-session.js";

const text = (value: string): FauxResponse => ({ content: [{ type: "text", text: value }] });
const bash = (command: string): FauxResponse => ({
  content: [{ type: "toolCall", name: "bash", arguments: { command } }],
});

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

/** A project `.claude/commands/<name>.md`, and settings that read the Claude setup and ask before every bash call. */
async function command(name: string, frontMatter: string, body: string): Promise<void> {
  await mkdir(join(dirs.cwd, ".claude", "commands"), { recursive: true });
  await writeFile(join(dirs.cwd, ".claude", "commands", `${name}.md`), `---\n${frontMatter}\n---\n${body}\n`);
  await writeFile(
    join(dirs.home, "settings.json"),
    JSON.stringify({ claudeCompat: true, approval: "ask", permissions: { ask: ["bash"] } }),
  );
}

const results = (faux: { contexts: { messages: { role: string; content: unknown }[] }[] }) =>
  faux.contexts
    .at(-1)
    ?.messages.filter((message) => message.role === "toolResult")
    .map((message) => JSON.stringify(message.content)) ?? [];

describe(".claude/commands front-matter", () => {
  it("allowed-tools approves those calls for the command's prompt only", async () => {
    await command(
      "status",
      "description: Show the repository status\nallowed-tools: Bash(git status:*), Read",
      "Show what changed, with git status.",
    );
    const asked: string[] = [];
    const { faux, session, dispose } = await startFauxSession(
      dirs,
      [bash("git status --short"), bash("echo not-covered"), text("shown"), bash("git status"), text("asked")],
      { trust: true, ui: answeringUser("deny", asked) },
    );
    await session.prompt("/status");
    const duringCommand = results(faux);
    await session.prompt("and again, without the command");
    await dispose();
    // git status ran unasked (it fails outside a repository, but it ran); echo was still asked, and refused.
    expect(duringCommand[0]).toMatch(/not a git repository/);
    expect(duringCommand[1]).toContain("The user declined this call");
    expect(asked).toEqual(["echo not-covered", "git status"]);
    expect(results(faux).at(-1)).toContain("The user declined this call");
  });

  it("model runs the command's prompt on that model, then the session's model again", async () => {
    const small = createFauxModel([text("from the small model")], { modelId: "faux-small" });
    const models = createModelRegistry();
    models.registerProvider({ name: "faux", api: "faux", baseUrl: small.model.baseUrl }, [small.model]);
    await command("quick", "description: A quick answer\nmodel: faux-small", "Answer quickly: $ARGUMENTS");
    const { faux, session, dispose } = await startFauxSession(dirs, [text("from the main model")], {
      trust: true,
      models,
    });
    const mainId = session.state.model.id;
    await session.prompt("/quick what is 2+2");
    expect(session.getLastAssistantText()).toBe("from the small model");
    expect(small.contexts[0]?.messages.at(-1)?.content).toBe("Answer quickly: what is 2+2");
    expect(session.state.model.id).toBe(mainId);
    await session.prompt("and now?");
    await dispose();
    expect(session.getLastAssistantText()).toBe("from the main model");
    expect(faux.contexts).toHaveLength(1);
    expect(small.contexts).toHaveLength(1);
  });

  it("reads subfolders as Claude Code does: frontend/component.md is /component (project:frontend)", async () => {
    const put = async (path: string, text: string) => {
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, text);
    };
    const project = join(dirs.cwd, ".claude", "commands");
    const user = join(dirs.home, ".claude", "commands");
    await put(
      join(project, "frontend", "component.md"),
      "---\ndescription: Make a component\n---\nMake a $1 component.\n",
    );
    await put(join(user, "component.md"), "---\ndescription: The user's own\n---\nThe user's component.\n");
    await put(join(user, "backend", "api.md"), "Write an API for $ARGUMENTS.\n");
    await put(join(project, "a", "lint.md"), "Lint from a.\n");
    await put(join(project, "b", "lint.md"), "Lint from b.\n");
    await writeFile(join(dirs.home, "settings.json"), JSON.stringify({ claudeCompat: true }));
    const { faux, session, dispose } = await startFauxSession(dirs, [text("made"), text("written"), text("linted")], {
      trust: true,
    });
    const described = Object.fromEntries(session.info.templates.map((t) => [t.name, t.description]));
    await session.prompt("/component button");
    await session.prompt("/api users");
    await session.prompt("/lint");
    await dispose();
    // The project's wins over the user's of the same name; in one folder the first subfolder in path order.
    expect(described).toMatchObject({
      component: "Make a component (project:frontend)",
      api: "Write an API for $ARGUMENTS. (user:backend)",
      lint: "Lint from a. (project:a)",
    });
    const sent = faux.contexts.map((context) => JSON.stringify(context.messages.at(-1)?.content));
    expect(sent[0]).toContain("Make a button component.");
    expect(sent[1]).toContain("Write an API for users.");
    expect(sent[2]).toContain("Lint from a.");
  });

  it("runs !`cmd` lines its allowed-tools cover, asks for the others, and says what failed or was refused", async () => {
    await command(
      "context",
      "description: Gather context\nallowed-tools: Bash(echo:*), Bash(ls:*), Bash(touch:*), Bash(mkdir:*)",
      [
        "- greeting: !`echo hello from $1`",
        "- missing: !`ls no-such-file`",
        "- not covered: !`touch uncovered.txt`",
        "- asked: !`pwd`",
        "- by gyre's rule: !`printf ruled`",
        "- sandboxed: !`mkdir ../escaped`",
        "Summarise.",
      ].join("\n"),
    );
    // gyre's own rule refuses touch even though the command's allowed-tools name it.
    await writeFile(
      join(dirs.home, "settings.json"),
      JSON.stringify({
        claudeCompat: true,
        approval: "ask",
        permissions: { deny: ["bash(touch:*)"], allow: ["bash(printf:*)"] },
      }),
    );
    const asked: string[] = [];
    const { faux, session, dispose } = await startFauxSession(dirs, [text("summarised")], {
      trust: true,
      ui: answeringUser("deny", asked),
    });
    await session.prompt("/context Ada");
    await dispose();
    const sent = String(faux.contexts[0]?.messages.at(-1)?.content);
    expect(sent).toContain("- greeting: hello from Ada\n");
    expect(sent).toMatch(/- missing: \[!`ls no-such-file` failed \(exit 2\)\]\n.*No such file/);
    expect(sent).toContain("- not covered: [!`touch uncovered.txt` was not run: Denied by the permission rules");
    expect(sent).toContain("- asked: [!`pwd` was not run: The user declined this call");
    expect(sent).toContain("- by gyre's rule: ruled\n");
    expect(sent).toContain("Summarise.");
    // Only the uncovered one was asked; the denied one never ran.
    expect(asked).toEqual(["pwd"]);
    expect(existsSync(join(dirs.cwd, "uncovered.txt"))).toBe(false);
    // The bash sandbox holds: a covered command still cannot write outside the workspace (here
    // the workspace is under /tmp, which the sandbox makes private: the folder never reaches the host).
    expect(sent).toContain("- sandboxed:");
    expect(existsSync(join(dirs.cwd, "..", "escaped"))).toBe(false);
  });

  it("adds the files its @path names inside the workspace, and an error line for one outside", async () => {
    await mkdir(join(dirs.cwd, "src"), { recursive: true });
    await writeFile(join(dirs.cwd, "src", "app.ts"), "export const answer = 42;\n");
    await writeFile(join(dirs.cwd, "..", "outside-secret.txt"), "TOP SECRET outside the workspace\n");
    await command("explain", "description: Explain a file", "Explain @src/app.ts and compare @../outside-secret.txt.");
    const { faux, session, dispose } = await startFauxSession(dirs, [text("explained")], { trust: true });
    await session.prompt("/explain");
    await dispose();
    const sent = String(faux.contexts[0]?.messages.at(-1)?.content);
    expect(sent).toContain("Explain @src/app.ts and compare @../outside-secret.txt.");
    expect(sent).toContain("Contents of src/app.ts (@src/app.ts):\n```\nexport const answer = 42;\n```");
    expect(sent).toMatch(/\[@\.\.\/outside-secret\.txt was not included: .+\]/);
    expect(sent).not.toContain("TOP SECRET");
  });
});
