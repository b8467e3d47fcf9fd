/**
 * What `gyre worker` and `gyre jobs` tell the operator (N17): every "started" line gets an
 * "ended" line (also when the worker is stopped), a job taken over after its worker died is
 * attempt 2 in the log and in `attempts`, an active job counts its running attempt, and
 * `gyre jobs` has a header.
 */
import { describe, expect, it } from "vitest";
import { requireRedisServer } from "../../cli/test/helpers/redis-server.js";
import { cliEnv, runCli } from "../../cli/test/helpers/run-cli.js";
import { createFleetClient } from "../src/fleet-client.js";
import { captureStderr, exited, workspace as makeWorkspace, useFleet, waitFor, waitForJobs } from "./fleet-harness.js";

requireRedisServer();

/** The model stalls (a minute between pieces) on the first attempt of "take me over" and on every "stop me"; otherwise it answers. */
let takeOvers = 0;
const { state, pool } = useFleet("gyre-worker-logs-", ({ body }) => {
  const text = JSON.stringify(body.messages);
  if (text.includes("stop me")) return { text: "working on it", delayMs: 60_000 };
  if (text.includes("take me over") && takeOvers++ === 0) return { text: "working on it", delayMs: 60_000 };
  return { text: "done" };
});

describe("worker logs and gyre jobs", () => {
  it("numbers a taken-over job attempt 2, counts the running attempt, ends every start with a line, and lists jobs under a header", async () => {
    const { cwd, home } = await makeWorkspace(state.root, "takeover");
    const env = { OPENAI_BASE_URL: `${state.server.url}/v1`, OPENAI_API_KEY: "sk-test" };
    const queue = "takeover";
    const first = await pool.start(home, ["--queue", queue, "--lock-ms", "2000", "--allow-root", state.root], env);
    const firstLog = captureStderr(first);
    const client = await createFleetClient({ redisUrl: state.redis.url, queue });
    try {
      const id = await client.submit({ prompt: "take me over", cwd, provider: "openai", model: "gpt-4o", tools: [] });
      await waitFor(
        async () => (state.server.requests.length > 0 ? true : undefined),
        60_000,
        "the first model request",
      );
      expect(firstLog()).toContain(`job ${id} attempt 1 started`);
      expect((await client.get(id))?.attempts).toBe(1);

      first.kill("SIGKILL");
      await exited(first);
      const second = await pool.start(
        home,
        ["--queue", queue, "--lock-ms", "2000", "--grace-ms", "500", "--allow-root", state.root],
        env,
      );
      const secondLog = captureStderr(second);
      const [job] = await waitForJobs(client, [id], 90_000);
      expect(job, `${JSON.stringify(job)}\n${firstLog()}\n${secondLog()}`).toMatchObject({
        state: "completed",
        attempts: 2,
      });
      expect(secondLog()).toContain(`job ${id} attempt 2 started`);
      expect(secondLog()).toContain(`job ${id} attempt 2 ended: stop`);

      const listed = await runCli(["jobs", "--redis", state.redis.url, "--queue", queue], { cwd, env: cliEnv(home) });
      expect(listed.code).toBe(0);
      const [header, row] = listed.stdout.split("\n");
      expect(header).toBe("id\tstate\tattempts\tprompt");
      expect(row).toBe(`${id}\tcompleted\t2\ttake me over`);

      // Stopped while a job runs: the worker says so and the attempt still gets its "ended" line.
      const hung = state.server.requests.length;
      const running = await client.submit({ prompt: "stop me", cwd, provider: "openai", model: "gpt-4o", tools: [] });
      await waitFor(
        async () => (secondLog().includes(`job ${running} attempt 1 started`) ? true : undefined),
        60_000,
        "the second job to start",
      );
      await waitFor(async () => (state.server.requests.length > hung ? true : undefined), 60_000, "its model request");
      second.kill("SIGTERM");
      expect(await exited(second)).toBe(0);
      expect(secondLog()).toContain("stopping: 1 running job(s) get 500 ms to finish");
      expect(secondLog()).toMatch(
        new RegExp(`job ${running} attempt 1 ended: left for another worker \\(the worker is stopping\\)`),
      );
    } finally {
      await client.close();
    }
  }, 240_000);
});
