/**
 * Stopping a worker (SIGTERM, as a service manager does): a running job that ends within the
 * grace finishes on it; one that does not goes back to the queue at once, with no attempt counted,
 * and the next worker resumes it from the journal without waiting for the lock to expire.
 */
import { Queue } from "bullmq";
import { describe, expect, it } from "vitest";
import { requireRedisServer } from "../../cli/test/helpers/redis-server.js";
import { createFleetClient } from "../src/fleet-client.js";
import { captureStderr, exited, journalOf, useFleet, waitFor, waitForJobs, workspace } from "./fleet-harness.js";

requireRedisServer();

const { state, pool } = useFleet("gyre-fleet-stop-", ({ body }) => {
  const messages = body.messages ?? [];
  const results = messages.filter((message: { role: string }) => message.role === "tool");
  if (results.length > 0) return { text: `done after ${JSON.stringify(results.at(-1)?.content).slice(0, 60)}` };
  const long = JSON.stringify(messages).includes("long step");
  return { toolCalls: [{ name: "bash", arguments: { command: long ? "sleep 60" : "sleep 2; echo short-done" } }] };
});

describe("stopping a worker", () => {
  it("lets a job that ends within the grace finish, and hands one that does not to the next worker", async () => {
    const { cwd, home } = await workspace(state.root, "stop");
    const env = { OPENAI_API_KEY: "sk-stop-test-000000000000", OPENAI_BASE_URL: `${state.server.url}/v1` };
    const queue = "stop";
    // A lock far longer than the test: a hand-over can only come from the stop, not from expiry.
    const flags = ["--allow-root", state.root, "--queue", queue, "--lock-ms", "120000", "--concurrency", "2"];
    const first = await pool.start(home, [...flags, "--grace-ms", "6000"], env);
    const log = captureStderr(first);
    const client = await createFleetClient({ redisUrl: state.redis.url, queue });
    try {
      const job = (prompt: string) =>
        client.submit({ prompt, cwd, provider: "openai", model: "gpt-4o", tools: ["bash"] });
      const short = await job("the short step");
      const long = await job("the long step");
      await waitFor(
        async () => ((await client.sessionJsonl(long)).includes("sleep 60") ? true : undefined),
        60_000,
        "the long job's tool call",
      );
      await waitFor(
        async () => ((await client.sessionJsonl(short)).includes("sleep 2") ? true : undefined),
        60_000,
        "the short job's tool call",
      );
      const done = exited(first);
      first.kill("SIGTERM");
      expect(await done).toBe(0);
      expect(log()).toContain("get 6000 ms to finish");
      expect(log()).toMatch(new RegExp(`job ${short} attempt 1 ended: stop`));
      expect(log()).toMatch(new RegExp(`job ${long} attempt 1 ended: left for another worker`));
      expect((await client.get(short))?.state).toBe("completed");
      expect((await client.get(short))?.result?.text).toContain("short-done");
      expect((await client.get(long))?.state).toBe("waiting");

      const startedAt = Date.now();
      const second = await pool.start(home, flags, env);
      const secondLog = captureStderr(second);
      const [finished] = await waitForJobs(client, [long], 90_000);
      expect(Date.now() - startedAt).toBeLessThan(60_000);
      expect(finished?.state).toBe("completed");
      expect(finished?.result?.text).toMatch(/^done after .*(cancelled because the run was abor|interrupted)/);
      // The second start of the job; the stop was not a failure: only the completion was counted.
      expect(secondLog()).toMatch(new RegExp(`job ${long} attempt 2 started`));
      const raw = new Queue(queue, { connection: { url: state.redis.url } });
      expect((await raw.getJob(long))?.attemptsMade).toBe(1);
      await raw.close();
      const { messages, answers } = await journalOf(client, long);
      expect(messages.filter((message) => message.role === "user")).toHaveLength(2);
      expect(messages.filter((message) => message.role === "toolResult")).toHaveLength(1);
      expect(answers).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 200_000);
});
