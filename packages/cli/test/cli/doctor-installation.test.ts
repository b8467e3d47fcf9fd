import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atLeast, checkNode, REQUIRED_NODE } from "../../src/commands/doctor/check-installation.js";
import { createRedactor } from "../../src/core/session/redact-secrets.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { assistantMessage, userMessage } from "../session/helpers.js";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

type Check = { name: string; status: "ok" | "warn" | "fail"; detail: string; fix?: string };
type Report = { ok: boolean; checks: Check[]; session: { path?: string; findings: { kind: string }[] } };

async function doctorJson(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const result = await runCli(["doctor", "--json", ...args], { cwd, env });
  return { ...result, report: JSON.parse(result.stdout) as Report };
}

const byName = (report: Report, name: string) => report.checks.find((check) => check.name === name);

describe("gyre doctor checks the installation", () => {
  it("finds node, a working bubblewrap, git, ripgrep, key names without values, and connects to MCP servers", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(
      join(home, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everything, "stdio"] },
          broken: { command: join(home, "no-such-server") },
        },
      }),
    );
    const secret = "sk-ant-doctor-secret-value-123456";
    const env = cliEnv(home, { ANTHROPIC_API_KEY: secret });
    const { code, stdout, report } = await doctorJson([], cwd, env);
    expect(stdout).not.toContain(secret);
    expect(byName(report, "node")).toMatchObject({ status: "ok" });
    expect(byName(report, "sandbox")).toMatchObject({ status: "ok", detail: expect.stringContaining("bwrap") });
    expect(byName(report, "git")).toMatchObject({ status: "ok", detail: expect.stringMatching(/^git version/) });
    expect(byName(report, "ripgrep")).toMatchObject({ status: "ok", detail: expect.stringMatching(/^ripgrep \d/) });
    expect(byName(report, "keys")).toMatchObject({
      status: "ok",
      detail: expect.stringContaining("found ANTHROPIC_API_KEY"),
    });
    expect(byName(report, "mcp everything")).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/connected, \d+ tool/),
    });
    expect(byName(report, "mcp broken")).toMatchObject({ status: "fail", fix: expect.stringMatching(/\.$/) });
    expect(report.ok).toBe(false);
    expect(code).toBe(1);

    // The same checks as lines: each one ok/warn/fail, every warn and fail followed by its fix.
    const lines = await runCli(["doctor"], { cwd, env });
    expect(lines.code).toBe(1);
    expect(lines.stdout).toMatch(/^fail {2}mcp broken: .*\n {6}fix: .+\.$/m);
    expect(lines.stdout).toMatch(/^ok {4}sandbox: /m);
    expect(lines.stdout).not.toContain(secret);
  }, 60_000);

  it("fails the sandbox check with a fix when bwrap is not on PATH, and warns when no key is set", async () => {
    const { cwd, home } = await createWorkspace();
    const bin = join(home, "bin");
    await mkdir(bin);
    // A PATH with node and git but no bwrap.
    await symlink(process.execPath, join(bin, "node"));
    await symlink("/usr/bin/git", join(bin, "git"));
    const { code, report } = await doctorJson([], cwd, { ...cliEnv(home), PATH: bin });
    expect(code).toBe(1);
    expect(byName(report, "sandbox")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("not installed or not on PATH"),
      fix: expect.stringContaining("apt-get install bubblewrap"),
    });
    expect(byName(report, "keys")).toMatchObject({ status: "warn", fix: expect.stringMatching(/\.$/) });
    expect(byName(report, "mcp")).toMatchObject({ status: "ok", detail: "no MCP servers configured" });
  }, 30_000);

  it("knows the Node version the package's engines field asks for", async () => {
    const manifest = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
      engines: { node: string };
    };
    expect(`>=${REQUIRED_NODE.replace(/\.0$/, "")}`).toBe(manifest.engines.node);
    expect(checkNode("20.2.9")).toMatchObject({ status: "fail", fix: expect.stringContaining(REQUIRED_NODE) });
    expect(checkNode("20.3.0").status).toBe("ok");
    expect(atLeast("v22.1.0", "20.3.0")).toBe(true);
    expect(atLeast("19.9.9", "20.3.0")).toBe(false);
  });
});

describe("gyre doctor and the session the loader would repair (N8)", () => {
  /** Three prompts and answers, then the line of the second answer deleted from the middle. */
  async function sessionWithLostLine(home: string, cwd: string) {
    const session = SessionManager.create({ sessionsDir: join(home, "sessions"), cwd, redact: createRedactor() });
    for (const word of ["one", "two", "three"]) {
      session.appendMessage(userMessage(`prompt ${word}`));
      session.appendMessage(assistantMessage([{ type: "text", text: `answer ${word}` }], "stop"));
    }
    await session.close();
    const path = session.path as string;
    const lines = (await readFile(path, "utf8")).split("\n");
    lines.splice(4, 1); // the line of "answer two"
    await writeFile(path, lines.join("\n"));
    return path;
  }

  it("reports a lost middle line, says which session it picked, and --fix makes the link lasting", async () => {
    const { cwd, home } = await createWorkspace();
    const path = await sessionWithLostLine(home, cwd);
    const before = await readFile(path, "utf8");
    const checked = await runCli(["doctor"], { cwd, env: cliEnv(home) });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`session: ${path} (the newest of this folder, the one gyre -c continues)`);
    expect(checked.stdout).toContain("1 problem(s)");
    expect(checked.stdout).toMatch(/found: line 5: parent entry \w+ is missing/);
    expect(await readFile(path, "utf8")).toBe(before);

    const fixed = await runCli(["doctor", "--fix", path], { cwd, env: cliEnv(home) });
    expect(fixed.stdout).toContain("did: linked 1 entry whose parent line was lost");
    expect(fixed.stdout).toContain("  repaired");
    expect(fixed.code).toBe(0);
    const reopened = await SessionManager.open(path, { readOnly: true });
    const texts = reopened.buildContext().messages.map((message) => JSON.stringify(message.content));
    expect(reopened.problems).toEqual([]);
    expect(texts.join(" ")).toContain("prompt one");
    expect(texts.join(" ")).toContain("answer three");
    await reopened.close();

    const again = await doctorJson([path], cwd, cliEnv(home));
    expect(again.report.session).toMatchObject({ path, findings: [] });
  }, 30_000);
});
