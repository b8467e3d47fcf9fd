import { writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a Latin-1 file name in a real run", () => {
  it("reaches the model as caf\\xE9.txt and is read back by that spelling", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(Buffer.concat([Buffer.from(`${cwd}/caf`), Buffer.of(0xe9), Buffer.from(".txt")]), "latte\n");
    server = await startFakeModelServer({
      respond: ({ index }) =>
        index === 0
          ? { toolCalls: [{ name: "ls", arguments: {} }] }
          : index === 1
            ? { toolCalls: [{ name: "read", arguments: { path: "caf\\xE9.txt" } }] }
            : { text: "read it" },
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const result = await runCli(["-p", "--provider", "openai", "--tools", "ls,read", "what is in the file?"], {
      cwd,
      env,
    });
    expect(result.code).toBe(0);
    const results = (index: number) =>
      JSON.stringify(server?.requests[index]?.body.messages?.filter((message) => message.role === "tool"));
    expect(results(1)).toContain("caf\\\\xE9.txt");
    expect(results(1)).not.toContain("\\ufffd");
    expect(results(2)).toContain("latte");
  });
});
