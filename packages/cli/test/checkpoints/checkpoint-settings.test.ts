import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { readSessionLines } from "./workspace.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("checkpoint settings", () => {
  it("applies the per-file cap from settings.json and rejects a bad one before the run", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ checkpoints: { maxFileBytes: 500 } }));
    server = await startFakeModelServer({
      respond: ({ body }) =>
        body.messages?.at(-1)?.role === "user"
          ? {
              toolCalls: [
                { name: "bash", arguments: { command: "head -c 2000 /dev/zero > big.bin; echo s > small.txt" } },
              ],
            }
          : { text: "done" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
    const args = ["--provider", "openai", "--model", "gpt-4o", "--sandbox", "off"];
    const run = await runCli([...args, "-p", "go"], { cwd, env });
    expect(run.code).toBe(0);
    const { lines } = await readSessionLines(home);
    const end = lines.find((line) => line.type === "checkpoint" && line.reason === "turn_end") as unknown as {
      files: string[];
      skipped: { path: string; reason: string }[];
    };
    expect(end.skipped).toEqual([{ path: "big.bin", bytes: 2000, reason: "file_too_large" }]);
    expect(end.files).toEqual(["small.txt"]);

    await writeFile(join(home, "settings.json"), JSON.stringify({ checkpoints: { maxFileBytes: -1 } }));
    const refused = await runCli([...args, "-p", "go"], { cwd, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("/checkpoints/maxFileBytes must be a whole number of bytes above 0 (got -1)");
  });
});
