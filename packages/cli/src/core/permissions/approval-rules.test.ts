import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approvalSettingsFile, saveApprovedRules, suggestApprovalRules } from "./approval-rules.js";

describe("what Yes, always saves", () => {
  it("offers each command's prefix as the shell parser splits it", async () => {
    expect(await suggestApprovalRules("bash", { command: "npm test 2>&1 | tail -30" })).toEqual([
      "bash(npm test:*)",
      "bash(tail:*)",
    ]);
    expect(await suggestApprovalRules("bash", { command: "git diff --stat && git diff src" })).toEqual([
      "bash(git diff:*)",
    ]);
    expect(await suggestApprovalRules("bash", { command: "ls -la /tmp" })).toEqual(["bash(ls:*)"]);
  });

  it("keeps the exact command when the parser cannot see what runs", async () => {
    expect(await suggestApprovalRules("bash", { command: "sh -c 'rm -rf x'" })).toEqual(["bash(sh -c 'rm -rf x')"]);
    expect(await suggestApprovalRules("bash", { command: "sudo apt update" })).toEqual(["bash(sudo apt update)"]);
  });

  it("names the file for file tools and the tool otherwise", async () => {
    expect(await suggestApprovalRules("write", { path: ".env" })).toEqual(["write(.env)"]);
    expect(await suggestApprovalRules("mcp__github__create_issue", {})).toEqual(["mcp__github__create_issue"]);
  });

  it("saves to the user's settings for an untrusted folder, keeping what the file held", async () => {
    const root = await mkdtemp(join(tmpdir(), "gyre-approved-"));
    const file = approvalSettingsFile({ cwd: join(root, "project"), gyreHome: root, trusted: false });
    expect(file).toBe(join(root, "settings.json"));
    expect(approvalSettingsFile({ cwd: "/p", gyreHome: root, trusted: true })).toBe("/p/.gyre/settings.json");
    await writeFile(file, JSON.stringify({ theme: "light", permissions: { ask: ["bash(npm test:*)"] } }));
    await saveApprovedRules(file, ["bash(npm test:*)"]);
    await saveApprovedRules(file, ["bash(npm test:*)", "bash(tail:*)"]);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      theme: "light",
      permissions: { ask: ["bash(npm test:*)"], approved: ["bash(npm test:*)", "bash(tail:*)"] },
    });
  });

  it("refuses to overwrite a settings file that is not JSON", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "gyre-approved-")), "settings.json");
    await writeFile(file, "{ broken");
    await expect(saveApprovedRules(file, ["bash(ls:*)"])).rejects.toThrow(
      "is not valid JSON, so the rule was not saved",
    );
    expect(await readFile(file, "utf8")).toBe("{ broken");
  });
});
