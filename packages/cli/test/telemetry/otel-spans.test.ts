import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeBody, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const secret = "sk-test-telemetry-secret-0123456789abcdef";

function userTexts(body: FakeBody): string {
  return JSON.stringify(
    (body.messages ?? []).filter((message) => message.role === "user").map((message) => message.content),
  );
}

/** The main agent reads a file and starts an explore subagent, which reads too; then both answer. */
function respond({ body }: { body: FakeBody }) {
  const results = (body.messages ?? []).filter((message) => message.role === "tool").length;
  const usage = { prompt_tokens: 500, completion_tokens: 40, total_tokens: 540 };
  if (userTexts(body).includes("SUB-TASK"))
    return results === 0
      ? { toolCalls: [{ id: "sub-read", name: "read", arguments: { path: "notes.md" } }], usage }
      : { text: "SECRET-ANSWER-TEXT from the subagent", usage };
  if (results === 0)
    return {
      toolCalls: [
        { id: "main-read", name: "read", arguments: { path: "notes.md" } },
        { id: "main-task", name: "task", arguments: { description: "look", prompt: "SUB-TASK", agent: "explore" } },
      ],
      usage,
    };
  return { text: "MAIN-DONE", usage };
}

async function runTraced(receiver: OtlpReceiver, extra: Record<string, string> = {}, settings?: object) {
  const server = await startFakeModelServer({ respond });
  closers.push(() => server.close());
  const { cwd, home } = await createWorkspace();
  await writeFile(join(cwd, "notes.md"), "PRIVATE-FILE-CONTENT\n");
  if (settings) await writeFile(join(home, "settings.json"), JSON.stringify(settings));
  const env = cliEnv(home, {
    OPENAI_API_KEY: secret,
    OPENAI_BASE_URL: `${server.url}/v1`,
    OTEL_SERVICE_NAME: "gyre-test",
    ...extra,
  });
  if (!settings) env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  const result = await runCli(
    ["-p", "--provider", "openai", "--model", "gpt-4o", "--tools", "read,task", "SECRET-PROMPT-TEXT go"],
    { cwd, env },
  );
  return result;
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe("OpenTelemetry export", () => {
  it("sends a run's span tree over OTLP/HTTP JSON: model calls and tools under the run, the subagent under its task span", async () => {
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const result = await runTraced(receiver);
    expect(result.stdout).toContain("MAIN-DONE");
    const spans = receiver.spans();
    expect(receiver.contentTypes.every((type) => type.startsWith("application/json"))).toBe(true);
    const [mainRun] = byName(spans, "invoke_agent main");
    expect(mainRun).toBeDefined();
    expect(mainRun?.parentSpanId).toBe("");
    expect(mainRun?.attributes["gen_ai.operation.name"]).toBe("invoke_agent");
    const chats = byName(spans, "chat gpt-4o");
    // Two main calls and two subagent calls.
    expect(chats).toHaveLength(4);
    const mainChats = chats.filter((span) => span.parentSpanId === mainRun?.spanId);
    expect(mainChats).toHaveLength(2);
    expect(mainChats[0]?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.system": "openai",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.usage.input_tokens": 500,
      "gen_ai.usage.output_tokens": 40,
    });
    const task = byName(spans, "execute_tool task")[0];
    expect(task?.parentSpanId).toBe(mainRun?.spanId);
    expect(task?.attributes["gen_ai.tool.call.id"]).toBe("main-task");
    const subRun = spans.find((span) => span.name.startsWith("invoke_agent explore"));
    expect(subRun?.parentSpanId).toBe(task?.spanId);
    expect(chats.filter((span) => span.parentSpanId === subRun?.spanId)).toHaveLength(2);
    const reads = byName(spans, "execute_tool read");
    expect(reads.map((span) => span.parentSpanId).sort()).toEqual([mainRun?.spanId, subRun?.spanId].sort());
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const metricNames = new Set(receiver.metrics().map((metric) => metric.name));
    expect(metricNames).toEqual(
      new Set(["gen_ai.client.token.usage", "gen_ai.client.operation.duration", "gyre.cost"]),
    );
    expect(receiver.metrics()[0]?.service).toBe("gyre-test");
    // Without logContent: no prompt, answer, file content — and never a key.
    const sent = receiver.raw.join("\n");
    for (const text of [secret, "SECRET-PROMPT-TEXT", "SECRET-ANSWER-TEXT", "PRIVATE-FILE-CONTENT"])
      expect(sent).not.toContain(text);
  }, 60_000);

  it("exports prompts and tool output with telemetry.logContent, secrets redacted, and joins a TRACEPARENT's trace", async () => {
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    await runTraced(
      receiver,
      { TRACEPARENT: `00-${traceId}-00f067aa0ba902b7-01` },
      { telemetry: { otlpEndpoint: receiver.url, logContent: true } },
    );
    const spans = receiver.spans();
    expect(spans.length).toBeGreaterThan(5);
    expect(spans.every((span) => span.traceId === traceId)).toBe(true);
    expect(byName(spans, "invoke_agent main")[0]?.parentSpanId).toBe("00f067aa0ba902b7");
    const sent = receiver.raw.join("\n");
    expect(sent).toContain("SECRET-PROMPT-TEXT");
    expect(sent).toContain("PRIVATE-FILE-CONTENT");
    expect(sent).not.toContain(secret);
  }, 60_000);
});
