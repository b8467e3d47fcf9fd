import { join } from "node:path";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "../sdk/temp-dirs.js";
import { put, toolResultTexts } from "./faux-session.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

const call = (name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [{ type: "toolCall", name, arguments: args }],
});
const done: FauxResponse = { content: [{ type: "text", text: "done" }] };

const results = toolResultTexts;

async function run(responses: FauxResponse[], options: { trust: boolean; compat: boolean }) {
  const faux = createFauxModel(responses);
  const { session, dispose } = await createAgentSession({
    cwd: dirs.cwd,
    gyreHome: join(dirs.home, ".gyre"),
    model: faux.model,
    trust: options.trust,
    settings: { claudeCompat: options.compat },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dirs.home },
  });
  await session.prompt("work on the code");
  await dispose();
  return { faux, system: faux.contexts[0]?.systemPrompt ?? "", seen: results(faux.contexts.at(-1)) };
}

/** A project in the shape Claude Code's memory docs show: a root CLAUDE.md and one per part of the tree. */
async function writeProject(): Promise<void> {
  await put(join(dirs.cwd, "CLAUDE.md"), "Root memory.\n");
  await put(join(dirs.cwd, "src", "ui", "CLAUDE.md"), "UI memory: components are functions. See @conventions.md\n");
  await put(join(dirs.cwd, "src", "ui", "conventions.md"), "UI import: props are typed.\n");
  await put(join(dirs.cwd, "src", "ui", "button.ts"), "export const button = 1;\n");
  await put(join(dirs.cwd, "src", "api", "AGENTS.md"), "API agents file: validate every input.\n");
  await put(join(dirs.cwd, "src", "api", "server.ts"), "export const server = 1;\n");
  await put(join(dirs.cwd, "docs", "CLAUDE.md"), "Docs memory: never loaded here.\n");
}

describe("context files of folders below the workspace root", () => {
  it("joins a CLAUDE.md (with its imports) or AGENTS.md to the first read, edit or write under its folder, once", async () => {
    await writeProject();
    const { system, seen } = await run(
      [
        call("read", { path: "src/ui/button.ts" }),
        call("write", { path: "src/ui/card.ts", content: "export const card = 1;\n" }),
        call("edit", { path: "src/api/server.ts", edits: [{ oldText: "= 1", newText: "= 2" }] }),
        done,
      ],
      { trust: true, compat: true },
    );
    expect(system).toContain("Root memory.");
    expect(system).not.toContain("UI memory");
    expect(seen[0]).toContain("export const button = 1;");
    expect(seen[0]).toContain("Instructions from src/ui/CLAUDE.md, for the files under src/ui");
    expect(seen[0]).toContain("UI memory: components are functions.");
    expect(seen[0]).toContain("UI import: props are typed.");
    expect(seen[1]).not.toContain("UI memory");
    expect(seen[2]).toContain("API agents file: validate every input.");
    expect(seen.join("\n")).not.toContain("Docs memory");
  });

  it("does the same for AGENTS.md without the option, and nothing in an untrusted folder", async () => {
    await writeProject();
    const plain = await run([call("read", { path: "src/api/server.ts" }), done], { trust: true, compat: false });
    expect(plain.seen[0]).toContain("API agents file: validate every input.");
    const untrusted = await run(
      [call("read", { path: "src/api/server.ts" }), call("read", { path: "src/ui/button.ts" }), done],
      {
        trust: false,
        compat: true,
      },
    );
    expect(untrusted.seen.join("\n")).not.toMatch(/API agents file|UI memory/);
  });
});
