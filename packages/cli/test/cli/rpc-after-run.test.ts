/**
 * RPC right after a run: a client that answers `agent_end` at once (another prompt, a new
 * session, a compaction) is served, not refused as busy while the run is still being written;
 * and the model list and session stats carry what clients need.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient } from "../../src/modes/rpc/rpc-client.js";
import { closeAfterEach } from "../helpers/closing.js";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

const closing = closeAfterEach();

async function start() {
  const { cwd, home } = await createWorkspace();
  await writeFile(join(cwd, "notes.txt"), "notes\n");
  // A file-changing tool each run, so the run ends with a checkpoint: work after agent_end.
  const server = closing(
    await startFakeModelServer({
      respond: ({ body }) =>
        body.messages?.at(-1)?.role === "user"
          ? { toolCalls: [{ name: "bash", arguments: { command: "echo more >> notes.txt" } }] }
          : { text: "done" },
    }),
  );
  return closing(
    new RpcClient({
      command: gyreBin,
      args: ["--provider", "openai", "--model", "gpt-4o", "--sandbox", "off"],
      cwd,
      env: cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" }),
    }),
  );
}

describe("RPC right after agent_end", () => {
  it("accepts a prompt, compact and new_session sent the moment a run ends", async () => {
    const rpc = await start();
    for (const next of [{ type: "prompt", message: "again" }, { type: "compact" }, { type: "new_session" }] as const) {
      const answered = new Promise<{ success: boolean; error?: string }>((resolve) => {
        const unsubscribe = rpc.onEvent((event) => {
          if (event.type !== "agent_end") return;
          unsubscribe();
          void rpc.send(next).then(resolve);
        });
      });
      expect((await rpc.send({ type: "prompt", message: "change the notes" })).success).toBe(true);
      const response = await answered;
      expect({ command: next.type, ...response }).toMatchObject({ command: next.type, success: true });
      if (next.type === "prompt") await rpc.waitForEvent((event) => event.type === "agent_end");
    }
  });

  it("lists models with contextWindow and reasoning, and stats with the session's id and file", async () => {
    const rpc = await start();
    const models = (await rpc.send({ type: "get_available_models" })).data as {
      models: { provider: string; id: string; contextWindow: number; reasoning: boolean }[];
    };
    const model = models.models.find((entry) => entry.provider === "openai" && entry.id === "gpt-4o");
    expect(model).toMatchObject({ contextWindow: expect.any(Number), reasoning: expect.any(Boolean) });
    expect(models.models.every((entry) => entry.contextWindow > 0 && typeof entry.reasoning === "boolean")).toBe(true);
    const state = (await rpc.send({ type: "get_state" })).data as { sessionId: string; sessionFile: string };
    const stats = (await rpc.send({ type: "get_session_stats" })).data as { sessionId: string; sessionFile: string };
    expect(stats.sessionId).toBe(state.sessionId);
    expect(stats.sessionFile).toBe(state.sessionFile);
  });
});
