import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRules, createRuleSet, matchesBashPattern, parseRule } from "./permission-rules.js";

const options = { cwd: "/w", homeDir: "/h" };
const bashRules = createRuleSet(
  {
    allow: ["bash(ls:*)", "bash(true)", "bash(echo:*)", "bash(npm test)", "bash(git diff:*)", "bash(cat:*)"],
    ask: ["bash(git push:*)"],
    deny: ["bash(rm:*)", "bash(curl:*)"],
  },
  options,
);
const decide = async (command: string) => (await bashRules.evaluate("bash", { command })).decision;

describe("bash rules never fall from deny to allow (D20)", () => {
  it.each([
    "ls && rm x",
    "ls; rm x",
    "ls || rm -rf x",
    "ls | xargs rm",
    "echo $(rm x)",
    "echo `rm x`",
    "cat >(rm x) file",
    "cat <(rm x)",
    "(ls; rm x)",
    "{ ls; rm x; }",
    "FOO=1 rm x",
    "env A=1 rm x",
    "sudo rm x",
    "timeout 5 rm x",
    "nohup rm x &",
    "'r''m' x",
    "\\rm x",
    "if true; then rm x; fi",
    "for f in a; do rm $f; done",
    "f() { rm x; }; f",
    "ls\nrm x",
    `${Array.from({ length: 60 }, () => "true").join(" && ")} && rm -rf x`,
    "/usr/bin/rm x",
    "./rm x",
    "find . -maxdepth 0 -exec rm x \\;",
    "find . -name '*.o' -execdir /bin/rm {} +",
    "find . -ok rm {} ';'",
    "ls | xargs -0 /usr/bin/rm",
    "parallel -j 2 rm ::: a b",
    "/usr/bin/timeout 5 /usr/bin/rm x",
    "nice -n 5 rm x",
    "/usr/bin/env -i rm x",
    "command /bin/rm x",
    "sudo -u root /bin/rm x",
    "find . -exec sudo rm {} \\;",
  ])("denies %s", async (command) => {
    expect(await decide(command)).toBe("deny");
  });

  it.each(["ls | sh", "ls | bash", "eval ls", "bash -c 'ls'", "source x.sh", "$(echo ls) -la", "echo 'unterminated"])(
    "asks for %s, which the rules cannot see into",
    async (command) => {
      expect(await decide(command)).toBe("ask");
    },
  );

  it("never widens an allow rule by base name, and checks find's commands against the allow rules too", async () => {
    expect(await decide("/tmp/evil/ls -la")).toBe("none");
    expect(await decide("ls -la && find . -exec cat {} \\;")).toBe("none");
    expect(await decide("find . -exec sh -c 'rm x' \\;")).toBe("ask");
  });

  it("asks when any part matches an ask rule, even next to allowed parts", async () => {
    expect(await decide("git diff && git push origin main")).toBe("ask");
    expect(await decide("git push && rm x")).toBe("deny");
  });

  it("allows only when every part is allowed and nothing writes a file", async () => {
    expect(await decide("ls -la && git diff HEAD | cat")).toBe("allow");
    expect(await decide(`${Array.from({ length: 60 }, () => "true").join(" && ")} && ls`)).toBe("allow");
    expect(await decide("ls > listing.txt")).toBe("none");
    expect(await decide("ls 2>/dev/null")).toBe("allow");
    expect(await decide("ls && make")).toBe("none");
    expect(await decide("npm test --watch")).toBe("none");
  });

  it("does not let assignments or sudo borrow an allow rule", async () => {
    expect(await decide("PAGER='sh -c x' git diff")).toBe("none");
    expect(await decide("sudo ls")).toBe("none");
    expect(await decide("timeout 10 npm test")).toBe("allow");
  });

  it("skips the parser when no bash rule exists", async () => {
    const rules = createRuleSet({ deny: ["read(.env)"] }, options);
    expect(rules.hasBashRules).toBe(false);
    expect((await rules.evaluate("bash", { command: "rm -rf /" })).decision).toBe("none");
  });
});

describe("rules for other tools", () => {
  let root: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "gyre-rules-")));
    await mkdir(join(root, "proj"));
    await mkdir(join(root, "secret"));
    await writeFile(join(root, "proj", ".env"), "");
    await symlink(join(root, "proj", ".env"), join(root, "proj", "innocent"));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("matches file rules on the canonical path, through symlinks", async () => {
    const rules = createRuleSet(
      { allow: ["read(**)"], deny: ["read(.env)"] },
      { cwd: join(root, "proj"), homeDir: root },
    );
    expect((await rules.evaluate("read", { path: ".env" })).decision).toBe("deny");
    expect((await rules.evaluate("read", { path: "innocent" })).decision).toBe("deny");
    expect((await rules.evaluate("read", { path: "src/a.ts" })).decision).toBe("allow");
  });

  it("reads ~/ in a file rule as the home folder, and / as the filesystem root", async () => {
    const rules = createRuleSet(
      { deny: ["write(~/secret/**)"], ask: [`edit(${root}/proj/*.lock)`] },
      { cwd: join(root, "proj"), homeDir: root },
    );
    expect((await rules.evaluate("write", { path: "../secret/key" })).decision).toBe("deny");
    expect((await rules.evaluate("write", { path: join(root, "secret", "a", "b") })).decision).toBe("deny");
    expect((await rules.evaluate("write", { path: "notes.md" })).decision).toBe("none");
    expect((await rules.evaluate("edit", { path: "yarn.lock" })).decision).toBe("ask");
  });

  it("matches MCP tools by name, with wildcards", async () => {
    const rules = createRuleSet({ deny: ["mcp__github__delete_repo"], ask: ["mcp__github__*"] }, options);
    expect((await rules.evaluate("mcp__github__delete_repo", {})).decision).toBe("deny");
    expect((await rules.evaluate("mcp__github__create_issue", {})).decision).toBe("ask");
    expect((await rules.evaluate("mcp__other__x", {})).decision).toBe("none");
  });
});

describe("parseRule and matchesBashPattern", () => {
  it("parses tool(pattern) and bare names, and rejects the rest with a sentence", () => {
    expect(parseRule("bash(git diff:*)")).toEqual({
      ok: true,
      rule: { source: "bash(git diff:*)", tool: "bash", pattern: "git diff:*" },
    });
    expect(parseRule("mcp__x__y")).toMatchObject({ ok: true, rule: { tool: "mcp__x__y", pattern: undefined } });
    expect(parseRule("bash(")).toMatchObject({ ok: false });
    expect(checkRules({ deny: ["bash()"] })).toContain("permissions.deny");
  });

  it("matches prefixes on word boundaries", () => {
    expect(matchesBashPattern("git diff:*", "git diff --stat")).toBe(true);
    expect(matchesBashPattern("git diff:*", "git difftool")).toBe(false);
    expect(matchesBashPattern("rm:*", "rm")).toBe(true);
  });
});
