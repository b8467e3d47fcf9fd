import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The tool result the CLI sent back to the model on the second request. */
function toolResultText(): string {
  const messages = server?.requests[1]?.body.messages ?? [];
  return JSON.stringify(messages.find((message) => message.role === "tool")?.content);
}

describe("file tools on special files", () => {
  // Opening a FIFO blocks a libuv thread until a writer appears; process.exit then waits for it
  // too, so the whole CLI hung, SIGTERM included.
  for (const tool of ["read", "edit"] as const) {
    it(`${tool} refuses a FIFO instead of hanging the run`, async () => {
      const { cwd, home } = await createWorkspace();
      execFileSync("mkfifo", [join(cwd, "pipe")]);
      const args = tool === "read" ? { path: "pipe" } : { path: "pipe", oldText: "a", newText: "b" };
      server = await startFakeModelServer({
        respond: ({ index }) => (index === 0 ? { toolCalls: [{ name: tool, arguments: args }] } : { text: "done" }),
      });
      const result = await runCli(["-p", "--provider", "openai", "look at pipe"], {
        cwd,
        env: cliEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }),
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("done\n");
      expect(toolResultText()).toContain("pipe is not a regular file");
    }, 15_000);
  }
});
