import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSettings, loadSettings } from "./settings.js";

describe("sandbox and permissions settings", () => {
  it("names a typo, a wrong type or a broken rule in one sentence each", async () => {
    expect(await checkSettings({ sandbox: { netwrok: true } })).toEqual([
      expect.stringContaining("/sandbox/netwrok is not a known key; use mode, network"),
    ]);
    expect(await checkSettings({ sandbox: { network: "yes" } })).toEqual([
      '/sandbox/network must be true or false (got "yes")',
    ]);
    expect(await checkSettings({ sandbox: { denyRead: "~/.ssh" } })).toEqual([
      '/sandbox/denyRead must be a list of strings (got "~/.ssh")',
    ]);
    expect(await checkSettings({ permissions: { deny: "bash(rm)" } })).toEqual([
      '/permissions/deny must be a list of rules such as "bash(git diff:*)" (got "bash(rm)")',
    ]);
    expect(await checkSettings({ permissions: { deny: ["bash(rm"] } })).toEqual([
      expect.stringContaining("/permissions/deny/0: "),
    ]);
  });

  it("adds project rules to the user's instead of replacing them", async () => {
    const root = await mkdtemp(join(tmpdir(), "gyre-safety-settings-"));
    try {
      await mkdir(join(root, "proj", ".gyre"), { recursive: true });
      await writeFile(join(root, "settings.json"), JSON.stringify({ permissions: { deny: ["bash(rm:*)"] } }));
      await writeFile(
        join(root, "proj", ".gyre", "settings.json"),
        JSON.stringify({ permissions: { deny: [], allow: ["bash(ls)"] } }),
      );
      const { settings } = await loadSettings({ gyreHome: root, cwd: join(root, "proj"), includeProject: true });
      expect(settings.permissions).toEqual({ deny: ["bash(rm:*)"], allow: ["bash(ls)"] });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
