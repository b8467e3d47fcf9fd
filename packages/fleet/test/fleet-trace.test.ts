import { afterAll, describe, expect, it } from "vitest";
import { requireRedisServer } from "../../cli/test/helpers/redis-server.js";
import { cliEnv, runCli } from "../../cli/test/helpers/run-cli.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../cli/test/telemetry/otlp-receiver.js";
import { createFleetClient } from "../src/fleet-client.js";
import { useFleet, waitFor, waitForJobs, workspace } from "./fleet-harness.js";

requireRedisServer();

const { state, pool } = useFleet("gyre-fleet-trace-", () => ({ text: "traced" }));
let receiver: OtlpReceiver | undefined;
afterAll(() => receiver?.close());

describe("fleet trace context", () => {
  it("carries gyre submit's TRACEPARENT through the job to the worker's child, whose spans join that trace", async () => {
    receiver = await startOtlpReceiver();
    const { cwd, home } = await workspace(state.root, "trace");
    const queue = "trace";
    await pool.start(home, ["--queue", queue, "--allow-root", state.root], {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `${state.server.url}/v1`,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const submitted = await runCli(
      [
        "submit",
        "--redis",
        state.redis.url,
        "--queue",
        queue,
        "--cwd",
        cwd,
        "--provider",
        "openai",
        "--model",
        "gpt-4o",
        "say it",
      ],
      { cwd, env: cliEnv(home, { TRACEPARENT: `00-${traceId}-b7ad6b7169203331-01` }) },
    );
    expect(submitted.code).toBe(0);
    const id = submitted.stdout.trim();
    const client = await createFleetClient({ redisUrl: state.redis.url, queue });
    try {
      const [job] = await waitForJobs(client, [id], 60_000);
      expect(job?.state).toBe("completed");
    } finally {
      await client.close();
    }
    const spans = await waitFor(
      async () => {
        const received = receiver?.spans() ?? [];
        return received.some((span) => span.name === "invoke_agent main") ? received : undefined;
      },
      20_000,
      "the child's spans",
    );
    expect(spans.every((span) => span.traceId === traceId)).toBe(true);
    expect(spans.find((span) => span.name === "invoke_agent main")?.parentSpanId).toBe("b7ad6b7169203331");
    expect(spans.some((span) => span.name === "chat gpt-4o")).toBe(true);
  }, 90_000);
});
