import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fingerprintProject } from "../project-fingerprint.js";
import { loadContextFiles } from "../system-prompt/context-files.js";
import { getProjectTrustState, trustProject } from "../trust.js";
import { remember } from "./remember.js";

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function place() {
  const root = await mkdtemp(join(tmpdir(), "gyre-memory-"));
  created.push(root);
  const cwd = join(root, "project");
  const gyreHome = join(root, "home");
  await mkdir(cwd);
  return { cwd, gyreHome };
}

const fingerprint = async (where: { cwd: string; gyreHome: string }) =>
  fingerprintProject({ ...where, contextFiles: await loadContextFiles(where) });

describe("remember", () => {
  it("appends a list item on a line of its own, creating the user's file and its folder", async () => {
    const where = await place();
    await writeFile(join(where.cwd, "AGENTS.md"), "# Rules\nno trailing newline");
    const refreshed: string[] = [];
    const refresh = async () => {
      refreshed.push("yes");
      return [join(where.cwd, "AGENTS.md")];
    };
    const project = await remember(where, { text: "  - use   pnpm\n", scope: "project" }, refresh);
    expect(project).toEqual({ path: join(where.cwd, "AGENTS.md"), scope: "project", created: false, inContext: true });
    expect(await readFile(join(where.cwd, "AGENTS.md"), "utf8")).toBe("# Rules\nno trailing newline\n- use pnpm\n");
    const user = await remember(where, { text: "answer briefly", scope: "user" }, refresh);
    expect(user).toMatchObject({ path: join(where.gyreHome, "AGENTS.md"), created: true, inContext: false });
    expect(await readFile(join(where.gyreHome, "AGENTS.md"), "utf8")).toBe("- answer briefly\n");
    expect(refreshed).toHaveLength(2);
  });

  it("writes to CLAUDE.md where it is the folder's only context file, and refuses empty text or a bad scope", async () => {
    const where = await place();
    await writeFile(join(where.cwd, "CLAUDE.md"), "claude rules\n");
    const result = await remember(where, { text: "x", scope: "project" }, async () => []);
    expect(result.path).toBe(join(where.cwd, "CLAUDE.md"));
    await expect(remember(where, { text: "  ", scope: "project" }, async () => [])).rejects.toThrow(
      "Nothing to remember",
    );
    await expect(remember(where, { text: "x", scope: "team" as never }, async () => [])).rejects.toThrow(
      'Memory scope must be "project" or "user"',
    );
  });

  it("keeps a remembered trust (and its .mcp.json approval) through the user's own write; leaves others alone", async () => {
    const where = await place();
    await writeFile(join(where.cwd, "AGENTS.md"), "rules\n");
    await trustProject({ ...where, fingerprint: await fingerprint(where), mcpFingerprint: "mcp-hash" });
    await remember(where, { text: "more", scope: "project" }, async () => []);
    const now = await fingerprint(where);
    expect(await getProjectTrustState({ ...where, fingerprint: now })).toBe("trusted");
    const file = JSON.parse(await readFile(join(where.gyreHome, "trusted-projects.json"), "utf8"));
    expect(Object.values(file.projects)[0]).toMatchObject({ fingerprint: now, mcpFingerprint: "mcp-hash" });
    // A record that no longer matched (the files changed otherwise) is not blessed by a memory line.
    await writeFile(join(where.cwd, "AGENTS.md"), "changed behind gyre's back\n");
    await remember(where, { text: "again", scope: "project" }, async () => []);
    expect(await getProjectTrustState({ ...where, fingerprint: await fingerprint(where) })).toBe("changed");
  });
});
