import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, type FakeRequest, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgSign=false", ...args], {
    cwd,
    encoding: "utf8",
  });

/** A repository with one commit; `math.js`'s `add` then gets a planted bug (it subtracts) and `notes.md` is new. */
async function repositoryWithPlantedBug(): Promise<{ cwd: string; home: string }> {
  const workspace = await createWorkspace();
  const { cwd } = workspace;
  git(cwd, "init", "-q", "-b", "main");
  await mkdir(join(cwd, "src"));
  await writeFile(join(cwd, "src", "math.js"), "export function add(a, b) {\n  return a + b;\n}\n");
  git(cwd, "add", ".");
  git(cwd, "commit", "-q", "-m", "add");
  return workspace;
}

const plantBug = (cwd: string) =>
  writeFile(join(cwd, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");

const findings = {
  summary: "add subtracts.",
  findings: [
    {
      file: "src/math.js",
      line: 2,
      severity: "high",
      title: "add returns a - b",
      explanation: "Every caller of add gets the difference.",
      fix: "return a + b;",
    },
  ],
};

/** The user message the reviewer was sent first (its prompt with the diff). */
const promptOf = (request: FakeRequest | undefined) =>
  JSON.stringify(request?.body.messages?.find((message) => message.role === "user")?.content ?? "");
const toolNamesOf = (request: FakeRequest | undefined) =>
  ((request?.body.tools as { function: { name: string } }[] | undefined) ?? []).map((tool) => tool.function.name);

describe("gyre review", () => {
  it("gives the read-only reviewer the uncommitted diff (untracked files too) and prints its findings at file:line", async () => {
    const { cwd, home } = await repositoryWithPlantedBug();
    await plantBug(cwd);
    await writeFile(join(cwd, "notes.md"), "new untracked notes\n");
    server = await startFakeModelServer({
      // The reviewer first reads the file around the diff, then answers with the findings shape.
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "read", arguments: { path: "src/math.js" } }] }
          : { text: `Here is what I found:\n\`\`\`json\n${JSON.stringify(findings)}\n\`\`\`` },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    const result = await runCli(["review", "--provider", "openai", "--model", "gpt-4o"], { cwd, env });
    expect(result.stderr).not.toContain("failed");
    expect(result.code).toBe(0);
    const [first, second] = server.requests;
    expect(promptOf(first)).toContain("-  return a + b;");
    expect(promptOf(first)).toContain("+  return a - b;");
    expect(promptOf(first)).toContain("+new untracked notes");
    // Plan mode's tools: reading ones and bash, never write or edit.
    expect(toolNamesOf(first).sort()).toEqual(["bash", "find", "grep", "ls", "read"]);
    expect(JSON.stringify(second?.body.messages)).toContain("return a - b");
    expect(result.stdout).toContain("Review of uncommitted changes against HEAD");
    expect(result.stdout).toContain("src/math.js:2 high: add returns a - b");
    expect(result.stdout).toContain("fix: return a + b;");
    expect(result.stdout).toContain("1 finding.");
  });

  it("reviews a branch from its merge base with --base, and keeps a free-text answer", async () => {
    const { cwd, home } = await repositoryWithPlantedBug();
    git(cwd, "checkout", "-q", "-b", "feature");
    await plantBug(cwd);
    git(cwd, "commit", "-q", "-am", "bug");
    // Uncommitted work is not part of the branch's review.
    await writeFile(join(cwd, "scratch.txt"), "not committed\n");
    server = await startFakeModelServer({ respond: () => ({ text: "Looks like add now subtracts." }) });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    const result = await runCli(["review", "--base", "main", "--provider", "openai", "--model", "gpt-4o"], {
      cwd,
      env,
    });
    expect(result.code).toBe(0);
    const prompt = promptOf(server.requests[0]);
    expect(prompt).toContain("the branch against main");
    expect(prompt).toContain("+  return a - b;");
    expect(prompt).not.toContain("not committed");
    expect(result.stdout).toContain("Looks like add now subtracts.");
    expect(result.stdout).toContain("No findings.");
  });

  it("refuses bad command lines with one sentence and exit 2, and an unknown base with exit 1", async () => {
    const { cwd, home } = await repositoryWithPlantedBug();
    const env = cliEnv(home);
    const both = await runCli(["review", "--base", "main", "--uncommitted"], { cwd, env });
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe(
      "gyre: gyre review takes --base <ref> or --uncommitted, not both; see gyre review --help.",
    );
    const missing = await runCli(["review", "--base"], { cwd, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("gyre: gyre review: --base needs a value; see gyre review --help.");
    const prompt = await runCli(["review", "fix", "it"], { cwd, env });
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain("takes no prompt");
    const unknown = await runCli(["review", "--bogus"], { cwd, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    server = await startFakeModelServer({ respond: () => ({ text: "{}" }) });
    const serverEnv = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    const noBase = await runCli(["review", "--base", "nope", "--provider", "openai", "--model", "gpt-4o"], {
      cwd,
      env: serverEnv,
    });
    expect(noBase.code).toBe(1);
    expect(noBase.stderr).toContain('There is no commit "nope" in this repository');
    const clean = await runCli(["review", "--provider", "openai", "--model", "gpt-4o"], { cwd, env: serverEnv });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("Nothing to review");
    expect(server.requests).toHaveLength(0);
  });
});
