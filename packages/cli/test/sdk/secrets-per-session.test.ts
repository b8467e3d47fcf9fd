import { readFile } from "node:fs/promises";
import { createFauxModel } from "@gyre/ai/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/session/redact-secrets.js";
import { createAgentSession } from "../../src/index.js";
import { makeTempDirs, type TempDirs } from "./temp-dirs.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(() => dirs.remove());

/** A key no shape or name rule knows: only the registry of the session given it can redact it. */
const keyOf = (name: string) => `plainkey-${name}-0123456789`;

async function sessionWithKey(name: string) {
  const faux = createFauxModel([{ content: [{ type: "text", text: "noted" }] }]);
  return createAgentSession({
    cwd: dirs.cwd,
    gyreHome: dirs.home,
    model: faux.model,
    apiKey: keyOf(name),
    session: "new",
    mcp: false,
  });
}

describe("secrets are an option of the session", () => {
  it("redacts each session's own key in its file, and registers nothing process-wide", async () => {
    const first = await sessionWithKey("first");
    const second = await sessionWithKey("second");
    await first.session.prompt(`my key is ${keyOf("first")} and theirs ${keyOf("second")}`);
    await second.session.prompt(`my key is ${keyOf("second")}`);
    const firstFile = await readFile(first.session.state.sessionFile ?? "", "utf8");
    const secondFile = await readFile(second.session.state.sessionFile ?? "", "utf8");
    await first.dispose();
    await second.dispose();
    expect(firstFile).not.toContain(keyOf("first"));
    expect(firstFile).toContain("my key is [REDACTED]");
    expect(secondFile).not.toContain(keyOf("second"));
    // Sessions share nothing: the first one never learnt the second's key, nor did the process.
    expect(firstFile).toContain(`theirs ${keyOf("second")}`);
    expect(createRedactor()(keyOf("first"))).toBe(keyOf("first"));
  });
});
