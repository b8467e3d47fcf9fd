/**
 * Faults after the response headers (issue 13, docs/design/messages-and-events.md#retrying-a-failed-stream, B12/B15): an in-stream overloaded or
 * rate-limit error, or an idle timeout, is retried like a 529 before the headers when nothing
 * was emitted yet, with the same backoff; once output was kept, it ends as an error with the
 * partial, never as an answer.
 */
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { RetryInfo } from "../src/types.js";
import {
  type LocalServer,
  loadFixtureBody,
  startLocalServer,
  type WireApi,
  writeChunks,
} from "./helpers/local-server.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const quirk = (api: WireApi, file: string) => readFileSync(new URL(`./wire-quirks/${api}/${file}`, import.meta.url));

/** A server answering request N with `bodies[N]` (the last one for later requests), each a 200 stream. */
async function serveInTurn(bodies: (Buffer | ((response: ServerResponse) => Promise<void>))[]): Promise<LocalServer> {
  const server = await startLocalServer(async (_request, response, index) => {
    const body = bodies[Math.min(index, bodies.length - 1)];
    if (typeof body === "function") await body(response);
    else if (body) await writeChunks(response, [body], "text/event-stream");
  });
  servers.push(server);
  return server;
}

const anthropicOk = () =>
  loadFixtureBody("anthropic-messages/sonnet45-short-text-padded-json.sse", "anthropic-messages");
const completionsOk = () =>
  loadFixtureBody("openai-completions/openai-gpt5-simple-text-usage.sse", "openai-completions");
const responsesOk = () =>
  loadFixtureBody("openai-responses/openai-gpt5-reasoning-summary-text.sse", "openai-responses");
const geminiOk = () => loadFixtureBody("google-gemini/gemini25pro-thought-summary-text.sse", "google-gemini");
const fast = { baseDelayMs: 1, maxRetries: 3 };

/** Serves `first`, then a good answer; returns the server, the final message and the retries. */
async function retryOnce(api: WireApi, first: Buffer, ok: Buffer) {
  const server = await serveInTurn([first, ok]);
  const retries: RetryInfo[] = [];
  const model = createTestModel(api, api === "google-gemini" ? server.url : `${server.url}/v1`);
  const { message } = await run(model, { apiKey: "k", retry: fast, onRetry: (info) => retries.push(info) });
  return { server, message, retries };
}

describe("faults after the headers", () => {
  it("retries an Anthropic overloaded_error event that came before any output, then answers", async () => {
    const server = await serveInTurn([quirk("anthropic-messages", "overloaded-error-after-200.sse"), anthropicOk()]);
    const retries: RetryInfo[] = [];
    const model = createTestModel("anthropic-messages", server.url);
    const { message } = await run(model, { apiKey: "k", retry: fast, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "2" }]);
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.reason).toContain("overloaded_error");
  });

  it("retries an OpenAI in-stream rate-limit error that came before any output, then answers", async () => {
    const server = await serveInTurn([quirk("openai-completions", "rate-limit-error-after-200.sse"), completionsOk()]);
    const retries: RetryInfo[] = [];
    const model = createTestModel("openai-completions", `${server.url}/v1`);
    const { message } = await run(model, { retry: fast, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "Olá!" }]);
    expect(server.requests).toHaveLength(2);
    expect(retries[0]?.reason).toContain("Rate limit reached");
  });

  it("retries a stream that goes silent after its headers before any output, then answers", async () => {
    const silent = async (response: ServerResponse) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      response.end();
    };
    const server = await serveInTurn([silent, completionsOk()]);
    const retries: RetryInfo[] = [];
    const model = createTestModel("openai-completions", `${server.url}/v1`);
    const { message } = await run(model, { retry: fast, idleTimeoutMs: 200, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
    expect(retries[0]?.reason).toContain("sent nothing");
  });

  it("does not retry once text was emitted, and keeps the partial as an error, not an answer", async () => {
    const server = await serveInTurn([quirk("anthropic-messages", "overloaded-error-after-text.sse"), anthropicOk()]);
    const model = createTestModel("anthropic-messages", server.url);
    const { message } = await run(model, { apiKey: "k", retry: fast });
    expect(server.requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "Partial ans" }]);
    expect(message.errorMessage).toContain("overloaded_error");
  });

  it("gives up after maxRetries when every stream is overloaded, and says so", async () => {
    const server = await serveInTurn([quirk("anthropic-messages", "overloaded-error-after-200.sse")]);
    const model = createTestModel("anthropic-messages", server.url);
    const { message } = await run(model, { apiKey: "k", retry: { baseDelayMs: 1, maxRetries: 2 } });
    expect(server.requests).toHaveLength(3);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([]);
    expect(message.errorMessage).toContain("overloaded_error");
    expect(message.errorMessage).toContain("gave up after 3 attempts");
  });

  it("retries an OpenAI Responses error event with a rate-limit code that came before any output", async () => {
    const first = quirk("openai-responses", "rate-limit-error-event-after-200.sse");
    const { server, message, retries } = await retryOnce("openai-responses", first, responsesOk());
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.reason).toContain("rate_limit_exceeded");
    expect(message.stopReason).toBe("stop");
    expect(message.content.some((block) => block.type === "text" && block.text.length > 0)).toBe(true);
  });

  it("retries an OpenAI Responses response.failed with server_error that came before any output", async () => {
    const first = quirk("openai-responses", "response-failed-server-error-after-200.sse");
    const { server, message, retries } = await retryOnce("openai-responses", first, responsesOk());
    expect(server.requests).toHaveLength(2);
    expect(retries[0]?.reason).toContain("server_error");
    expect(message.stopReason).toBe("stop");
  });

  it("does not retry an OpenAI Responses response.failed that no retry can fix", async () => {
    const first = quirk("openai-responses", "response-failed-invalid-prompt.sse");
    const { server, message, retries } = await retryOnce("openai-responses", first, responsesOk());
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("invalid_prompt");
  });

  it("retries a Gemini UNAVAILABLE error object in the stream that came before any output", async () => {
    const first = quirk("google-gemini", "unavailable-error-after-200.sse");
    const { server, message, retries } = await retryOnce("google-gemini", first, geminiOk());
    expect(server.requests).toHaveLength(2);
    expect(retries[0]?.reason).toContain("UNAVAILABLE");
    expect(message.stopReason).toBe("stop");
    expect(message.content.some((block) => block.type === "text" && block.text.length > 0)).toBe(true);
  });

  it("retries a Gemini RESOURCE_EXHAUSTED error object in the stream, and gives up after maxRetries", async () => {
    const server = await serveInTurn([quirk("google-gemini", "resource-exhausted-error-after-200.sse")]);
    const model = createTestModel("google-gemini", server.url);
    const { message } = await run(model, { apiKey: "k", retry: { baseDelayMs: 1, maxRetries: 2 } });
    expect(server.requests).toHaveLength(3);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([]);
    expect(message.errorMessage).toContain("RESOURCE_EXHAUSTED");
    expect(message.errorMessage).toContain("gave up after 3 attempts");
  });
});
