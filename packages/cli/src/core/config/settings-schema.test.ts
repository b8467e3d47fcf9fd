import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILT_IN_TOOL_NAMES } from "../tools/tool-names.js";
import { checkSettings, loadSettings, readSettingsFile } from "./settings.js";

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function settingsFile(value: unknown): Promise<string> {
  home = await mkdtemp(join(tmpdir(), "gyre-settings-schema-"));
  const file = join(home, "settings.json");
  await writeFile(file, JSON.stringify(value));
  return file;
}

describe("settings.json checked against its schema", () => {
  it("names every problem at once with the file, the JSON path, what was expected and what was found", async () => {
    const file = await settingsFile({ sandbox: { mode: "rw" }, maxTurns: -3, tools: ["read", "nope"], webSearch: 1 });
    const error = await readSettingsFile(file).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message.split("\n")).toEqual([
      `Broken settings file ${file} (4 problems):`,
      `  ${file}: /tools/1 must be one of ${BUILT_IN_TOOL_NAMES.map((name) => `"${name}"`).join(", ")} (got "nope")`,
      `  ${file}: /maxTurns must be a positive whole number (got -3)`,
      `  ${file}: /sandbox/mode must be one of "workspace-write", "read-only", "off" (got "rw")`,
      `  ${file}: /webSearch must be true or false (got 1)`,
    ]);
  });

  it("warns about unknown keys, naming them, and still loads the rest", async () => {
    const file = await settingsFile({ maxTurns: 3, maxTurn: 4, retry: { maxRetrys: 2 } });
    const loaded = await loadSettings({ gyreHome: home ?? "", cwd: home ?? "", includeProject: false });
    expect(loaded.settings.maxTurns).toBe(3);
    expect(loaded.warnings).toEqual([
      `${file}: /maxTurn is not a setting gyre knows; it is ignored (a typo?).`,
      `${file}: /retry/maxRetrys is not a setting gyre knows; it is ignored (a typo?).`,
    ]);
  });

  it("refuses unknown keys in the sandbox, permissions and checkpoints blocks", async () => {
    expect(
      await checkSettings({
        sandbox: { netwrok: false },
        permissions: { allows: [] },
        checkpoints: { maxDiskBytes: 1 },
      }),
    ).toEqual([
      "/sandbox/netwrok is not a known key; use mode, network, allowedDomains, writableRoots, protectedPaths, denyRead, passEnv",
      "/permissions/allows is not a known key; use allow, ask, deny, approved",
      "/checkpoints/maxDiskBytes is not a known key; use maxFileBytes, maxSnapshotBytes, maxRepositoryBytes",
    ]);
  });

  it("says why a timer has an upper bound and checks permission rule syntax", async () => {
    expect(await checkSettings({ idleTimeoutMs: 3e9, permissions: { deny: ["bash(rm:*)", "bash(rm"] } })).toEqual([
      "/idleTimeoutMs must be a number from 1 to 2147483647 (got 3000000000): a Node timer waits at most 2147483647 ms (about 24 days)",
      '/permissions/deny/1: "bash(rm" is not a rule; write tool(pattern) or a tool name, e.g. bash(git diff:*).',
    ]);
  });

  it("accepts the docs/design/safety.md sandbox and permissions example without warnings", async () => {
    await settingsFile({
      sandbox: {
        mode: "workspace-write",
        network: false,
        allowedDomains: ["registry.npmjs.org"],
        writableRoots: [],
        protectedPaths: [],
        denyRead: ["~/.ssh", ".env"],
      },
      permissions: {
        allow: ["bash(npm test)", "bash(git diff:*)", "read(**)"],
        ask: ["bash(git push:*)"],
        deny: ["bash(rm -rf:*)", "read(.env)", "mcp__github__delete_repo"],
      },
    });
    const loaded = await loadSettings({ gyreHome: home ?? "", cwd: home ?? "", includeProject: false });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.settings.sandbox?.mode).toBe("workspace-write");
  });
});
