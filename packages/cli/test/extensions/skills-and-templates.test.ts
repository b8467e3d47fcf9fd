import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { example, lastUserText, systemText, toolMessages } from "./helpers.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const skill = `---
name: release-notes
description: Write release notes from the git log
---
STEP-ONE: run git log since the last tag.
`;

describe("skills", () => {
  it("lists skills in the system prompt and lets the model read a skill's file outside the workspace", async () => {
    const { cwd, home } = await createWorkspace();
    const skillFile = join(home, "skills", "release-notes", "SKILL.md");
    await mkdir(join(home, "skills", "release-notes"), { recursive: true });
    await writeFile(skillFile, skill);
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "read", arguments: { path: skillFile } }] } : { text: "Following it." },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "write the release notes"], { cwd, env });
    expect(result.code).toBe(0);
    const system = systemText(server.requests[0]?.body);
    expect(system).toContain("- release-notes: Write release notes from the git log");
    expect(system).toContain(`file: ${skillFile}`);
    expect(toolMessages(server.requests[1]?.body)[0]).toContain("STEP-ONE: run git log since the last tag.");
  });

  it("inlines a skill invoked with /skill:name, followed by the arguments", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".gyre", "skills", "release-notes"), { recursive: true });
    await writeFile(join(cwd, ".gyre", "skills", "release-notes", "SKILL.md"), skill);
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--trust", "--provider", "openai", "/skill:release-notes for v2.0"], {
      cwd,
      env,
    });
    expect(result.code).toBe(0);
    const user = lastUserText(server.requests[0]?.body);
    expect(user).toContain('<skill name="release-notes"');
    expect(user).toContain("STEP-ONE");
    expect(user).not.toContain("description:");
    expect(user.trim().endsWith("for v2.0")).toBe(true);
  });
});

describe("prompt templates", () => {
  it("expands /name args with positional and all-argument placeholders, quotes kept together", async () => {
    const { cwd, home } = await createWorkspace();
    await mkdir(join(cwd, ".gyre", "prompts"), { recursive: true });
    await writeFile(
      join(cwd, ".gyre", "prompts", "review.md"),
      "---\ndescription: Review a file\n---\nReview $1 carefully, focusing on $2.\nAll: $@\n",
    );
    server = await startFakeModelServer({ respond: () => ({ text: "ok" }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const args = ["-p", "--trust", "--provider", "openai", '/review src/a.ts "error handling"'];
    expect((await runCli(args, { cwd, env })).code).toBe(0);
    expect(lastUserText(server.requests[0]?.body)).toBe(
      "Review src/a.ts carefully, focusing on error handling.\nAll: src/a.ts error handling",
    );
    // Untrusted, the project's templates do not apply: the text goes to the model as typed.
    expect((await runCli(["-p", "--provider", "openai", "/review src/a.ts"], { cwd, env })).code).toBe(0);
    expect(lastUserText(server.requests[1]?.body)).toBe("/review src/a.ts");
  });
});

describe("extension commands and messages", () => {
  it("runs /plan: a read-only planning run, then (nobody to confirm in print mode) stops with the plan", async () => {
    const { cwd, home } = await createWorkspace();
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "too early" } }] }
          : { text: "1. Read. 2. Write." },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const args = ["-p", "--provider", "openai", "-e", example("plan-then-execute.ts"), "/plan add a flag"];
    const result = await runCli(args, { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("1. Read. 2. Write.\n");
    expect(lastUserText(server.requests[0]?.body)).toBe("Make a plan for this task: add a flag");
    expect(systemText(server.requests[0]?.body)).toContain("# Planning mode");
    expect(toolMessages(server.requests[1]?.body)[0]).toContain("Planning mode: write is not allowed yet");
    expect(server.requests).toHaveLength(2);
  });
});
