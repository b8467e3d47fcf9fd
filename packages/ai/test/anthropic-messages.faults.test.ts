import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamAnthropicMessages } from "../src/providers/anthropic-messages/stream.js";
import type { Model, RetryInfo, StreamOptions } from "../src/types.js";
import { type LocalServer, loadFixtureBody, startLocalServer, writeChunks } from "./helpers/local-server.js";
import { runAbortingAtFirstText } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const sse = (type: string, payload: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
const head =
  sse("message_start", { message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1 } } }) +
  sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello, wor" } });
const tail = (stopReason: string) =>
  sse("content_block_stop", { index: 0 }) +
  sse("message_delta", { delta: { stop_reason: stopReason }, usage: { output_tokens: 7 } }) +
  sse("message_stop", {});
const overloaded = { type: "error", error: { details: null, type: "overloaded_error", message: "Overloaded" } };

/** Scripted server behaviours, picked per request by the `x-scenario` header. */
const scenarios: Record<string, (response: ServerResponse, attempt: number) => Promise<void> | void> = {
  "overloaded-then-ok": async (response, attempt) => {
    if (attempt === 0) {
      response.writeHead(529, { "content-type": "application/json", "retry-after": "0" });
      response.end(JSON.stringify(overloaded));
      return;
    }
    const body = loadFixtureBody("anthropic-messages/sonnet45-short-text-padded-json.sse", "anthropic-messages");
    await writeChunks(response, [body], "text/event-stream");
  },
  "mid-stream-error": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(`${head}event: error\ndata: ${JSON.stringify({ ...overloaded, request_id: "req_1" })}\n\n`);
  },
  "no-message-stop": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(`${head}${sse("content_block_stop", { index: 0 })}`);
  },
  hang: (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(head);
  },
  "bad-request": (response) => {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "max_tokens: too large" } }),
    );
  },
  refusal: (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(head + tail("refusal"));
  },
  "max-tokens": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(head + tail("max_tokens"));
  },
  "unknown-stop": (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(head + sse("mystery_event", {}) + tail("brand_new_reason"));
  },
};

let server: LocalServer;
let model: Model;
const attempts = new Map<string, number>();
beforeAll(async () => {
  server = await startLocalServer(async (request, response) => {
    const name = String(request.headers["x-scenario"]);
    const attempt = attempts.get(name) ?? 0;
    attempts.set(name, attempt + 1);
    await scenarios[name]?.(response, attempt);
  });
  model = createTestModel("anthropic-messages", server.url);
});
afterAll(() => server.close());

const run = (scenario: string, options: StreamOptions = {}) =>
  streamAnthropicMessages(
    model,
    { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
    { apiKey: "k", retry: { maxRetries: 2, baseDelayMs: 1 }, ...options, headers: { "x-scenario": scenario } },
  );

describe("anthropic-messages faults", () => {
  it("retries a 529 overloaded_error and then returns the answer", async () => {
    const retries: RetryInfo[] = [];
    const message = await run("overloaded-then-ok", { onRetry: (info) => retries.push(info) }).result();
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "2" }]);
    expect(attempts.get("overloaded-then-ok")).toBe(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.reason).toContain("Overloaded");
  });

  it("ends as an error carrying the mid-stream error message and keeps the partial text", async () => {
    const message = await run("mid-stream-error").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Anthropic stream error (overloaded_error): Overloaded");
    expect(message.content).toEqual([{ type: "text", text: "Hello, wor" }]);
    expect(message.usage.input).toBe(10);
  });

  it("treats a stream that ends without message_stop as an error", async () => {
    const message = await run("no-message-stop").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/ended before/);
    expect(message.content).toEqual([{ type: "text", text: "Hello, wor" }]);
  });

  it("ends as aborted within 200 ms of an abort mid-stream, keeping the partial text", async () => {
    const { message, msAfterAbort } = await runAbortingAtFirstText(model, {
      apiKey: "k",
      retry: { maxRetries: 2, baseDelayMs: 1 },
      headers: { "x-scenario": "hang" },
    });
    expect(msAfterAbort).toBeLessThan(200);
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "Hello, wor" }]);
  });

  it("does not retry a 400 and surfaces Anthropic's own message", async () => {
    const message = await run("bad-request").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Anthropic API error 400: max_tokens: too large");
    expect(attempts.get("bad-request")).toBe(1);
  });

  it("maps refusal to an error, max_tokens to length, and an unknown stop reason to stop", async () => {
    const refusal = await run("refusal").result();
    expect(refusal).toMatchObject({ stopReason: "error", rawStopReason: "refusal" });
    expect(refusal.errorMessage).toMatch(/refused/);
    expect(refusal.usage).toMatchObject({ input: 10, output: 7 });

    const length = await run("max-tokens").result();
    expect(length).toMatchObject({ stopReason: "length", rawStopReason: "max_tokens" });

    const unknown = await run("unknown-stop").result();
    expect(unknown).toMatchObject({ stopReason: "stop", rawStopReason: "brand_new_reason" });
    expect(unknown.content).toEqual([{ type: "text", text: "Hello, wor" }]);
  });
});
