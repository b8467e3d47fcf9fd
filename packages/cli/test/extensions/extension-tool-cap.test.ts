import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bigToolExtension = `
export default function (api) {
  api.registerTool({
    name: "dump",
    label: "Dump",
    description: "Returns a lot of text.",
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "line of output\\n".repeat(80000) }], details: undefined }),
  });
}
`;

describe("an extension tool that returns 1 MB", () => {
  it("is cut to the built-in tools' limits before it reaches the model, with a notice", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(cwd, "dump.mjs"), bigToolExtension);
    server = await startFakeModelServer({
      respond: ({ index }) => (index === 0 ? { toolCalls: [{ name: "dump", arguments: {} }] } : { text: "ok" }),
    });
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-t" });
    const result = await runCli(["-p", "--provider", "openai", "--no-session", "-e", "./dump.mjs", "go"], { cwd, env });
    expect(result.code).toBe(0);
    const toolMessage = server.requests[1]?.body.messages?.find((message) => message.role === "tool");
    const text = JSON.stringify(toolMessage?.content);
    expect(text.length).toBeLessThan(60_000);
    expect(text).toContain("the dump tool returned");
  });
});
