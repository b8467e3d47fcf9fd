/**
 * A bash output too long to return is saved where the model can reach it (audit A2): the path the
 * result names is read by the next sandboxed bash call and by the read and grep tools.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createBashSandbox } from "../../src/core/sandbox/bash-sandbox.js";
import { BASH_OUTPUT_DIR } from "../../src/core/tools/bash-output-dir.js";
import { createCodingTools } from "../../src/core/tools/index.js";
import { textOf, toolContext } from "../tools/helpers.js";
import { createWorkspace, policyFor, type Workspace } from "./helpers.js";

let workspace: Workspace | undefined;
const disposers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
  await workspace?.cleanup();
});

describe("the full output of a long bash command", () => {
  it("is saved in a folder the sandboxed bash, read and grep can all open, and the result names it", async () => {
    workspace = await createWorkspace("/var/tmp");
    const { mode: _mode, ...policy } = policyFor(workspace);
    const sandbox = createBashSandbox({ mode: "workspace-write", policy });
    disposers.push(() => sandbox.dispose());
    const tools = createCodingTools({
      cwd: workspace.cwd,
      tools: ["read", "grep", "bash"],
      homeDir: workspace.home,
      bash: { sandbox, escalation: "refused" },
    });
    const [read, grep, bash] = tools as [(typeof tools)[0], (typeof tools)[0], (typeof tools)[0]];
    const first = textOf(await bash.execute({ command: "seq 1 300000; echo NEEDLE-A2" }, toolContext()));
    const path = /saved to (\S+); read or grep it/.exec(first)?.[1];
    expect(path?.startsWith(`${BASH_OUTPUT_DIR}/`)).toBe(true);
    const again = textOf(await bash.execute({ command: `head -n 2 ${path}; wc -l < ${path}` }, toolContext()));
    expect(again).toBe("1\n2\n300001");
    const readBack = textOf(await read.execute({ path: path as string, offset: 299999, limit: 3 }, toolContext()));
    expect(readBack).toContain("300000");
    expect(readBack).toContain("NEEDLE-A2");
    const found = textOf(await grep.execute({ pattern: "NEEDLE-A2", path: path as string }, toolContext()));
    expect(found).toContain(":300001: NEEDLE-A2");
    const write = await bash.execute({ command: `echo x >> ${path} || echo refused` }, toolContext());
    expect(textOf(write)).toContain("refused");
  });
});
