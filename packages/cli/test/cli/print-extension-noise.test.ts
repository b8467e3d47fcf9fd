import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

/** An extension like the newcomer's guard: a status at session_start and a command that only notifies. */
const guard = `export default function (api) {
  api.registerCommand("guard", {
    description: "say how many calls were blocked",
    handler: async (args, ctx) => { ctx.ui.notify("guard: 0 call(s) blocked so far (args " + args + ")"); },
  });
  api.on("session_start", (_event, ctx) => ctx.ui.setStatus("guard", "guard: on"));
}
`;

async function setUp() {
  const { cwd, home } = await createWorkspace();
  const extension = join(home, "guard.mjs");
  await writeFile(extension, guard);
  const script = join(home, "script.json");
  await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "the answer" }] }]));
  const args = ["-p", "--provider", "faux", "--faux-script", script, "--no-session", "-e", extension];
  return { cwd, env: cliEnv(home), args };
}

describe("print mode with an extension (N11)", () => {
  it("an extension command that ran no model leaves stdout empty; its notice is on stderr", async () => {
    const { cwd, env, args } = await setUp();
    const result = await runCli([...args, "/guard hi"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("gyre: guard: 0 call(s) blocked so far (args hi)");
  });

  it("a status set at session_start is not written as a notice on every run", async () => {
    const { cwd, env, args } = await setUp();
    const result = await runCli([...args, "hello"], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("the answer\n");
    expect(result.stderr).not.toContain("guard: on");
  });
});
