import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPermissionSettings, checkSandboxSettings } from "./safety-settings.js";
import { loadSettings } from "./settings.js";

describe("sandbox and permissions settings", () => {
  it("accepts the DESIGN §8 example", () => {
    expect(
      checkSandboxSettings({
        mode: "workspace-write",
        network: false,
        allowedDomains: ["registry.npmjs.org"],
        writableRoots: [],
        protectedPaths: [],
        denyRead: ["~/.ssh", ".env"],
      }),
    ).toBeUndefined();
    expect(
      checkPermissionSettings({
        allow: ["bash(npm test)", "bash(git diff:*)", "read(**)"],
        ask: ["bash(git push:*)"],
        deny: ["bash(rm -rf:*)", "read(.env)", "mcp__github__delete_repo"],
      }),
    ).toBeUndefined();
  });

  it("names a typo, a wrong type or a broken rule in one sentence", () => {
    expect(checkSandboxSettings({ netwrok: true })).toContain('"sandbox.netwrok" is not a sandbox setting');
    expect(checkSandboxSettings({ network: "yes" })).toBe('"sandbox.network" must be true or false.');
    expect(checkSandboxSettings({ denyRead: "~/.ssh" })).toBe('"sandbox.denyRead" must be a list of strings.');
    expect(checkPermissionSettings({ allows: [] })).toContain('"permissions.allows" is not a rule list');
    expect(checkPermissionSettings({ deny: ["bash(rm"] })).toContain("permissions.deny:");
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
