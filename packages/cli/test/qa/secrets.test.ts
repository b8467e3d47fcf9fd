import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sessionText(home: string): Promise<string> {
  const root = join(home, "sessions");
  let text = "";
  for (const folder of await readdir(root))
    for (const file of await readdir(join(root, folder))) text += await readFile(join(root, folder, file), "utf8");
  return text;
}

describe("secrets in JSON mode and session files", () => {
  it("keeps env keys, --api-key and key-shaped output out of stdout, stderr and the session", async () => {
    const { cwd, home } = await createWorkspace();
    const envKey = "sk-proj-ENVHELDkey0123456789abcdefghij";
    const flagKey = "plainflagsecret-0123456789";
    const echoed = "sk-ant-api03-ECHOEDkey0123456789abcdefghij";
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "bash", arguments: { command: `printenv OPENAI_API_KEY; echo ${echoed}` } }] }
          : { text: `the keys are ${envKey} and ${flagKey}` },
    });
    const result = await runCli(["--mode", "json", "-p", "--provider", "openai", "--api-key", flagKey, "go"], {
      cwd,
      env: cliEnv(home, { OPENAI_API_KEY: envKey, OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(result.code).toBe(0);
    // The tool really ran and the model really said them: the output is redacted, not empty.
    expect(result.stdout).toContain('"toolName":"bash"');
    expect(result.stdout).toContain("the keys are [REDACTED] and [REDACTED]");
    for (const secret of [envKey, flagKey, echoed]) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
    const session = await sessionText(home);
    expect(session).not.toContain(envKey);
    // A key bash printed on its own line follows "\n" in the JSON line.
    expect(session).not.toContain(echoed);
    for (const line of result.stdout.trim().split("\n")) JSON.parse(line);
  });
});
