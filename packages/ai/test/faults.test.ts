import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { RetryInfo } from "../src/types.js";
import {
  type LocalServer,
  loadFixtureBody,
  type RecordedRequest,
  splitBody,
  startLocalServer,
  writeChunks,
} from "./helpers/local-server.js";
import { run, runAbortingAtFirstText } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

type Handler = (request: RecordedRequest, response: ServerResponse, index: number) => void | Promise<void>;

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler): Promise<LocalServer> {
  const server = await startLocalServer(handler);
  servers.push(server);
  return server;
}

const modelAt = (baseUrl: string, api: "openai-completions" | "openai-responses" = "openai-completions") =>
  createTestModel(api, `${baseUrl}/v1`, { provider: "testprovider", input: ["text"] });

const okBody = () => loadFixtureBody("openai-completions/openai-gpt5-simple-text-usage.sse", "openai-completions");
const textChunk = (text: string) =>
  `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const fast = { baseDelayMs: 1 };

describe("openai-completions under faults", () => {
  it("retries a 429 after its retry-after and then succeeds", async () => {
    const server = await serve(async (_request, response, index) => {
      if (index === 0) {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "0" });
        response.end(JSON.stringify({ error: { message: "Rate limit reached for requests" } }));
        return;
      }
      await writeChunks(response, [okBody()], "text/event-stream");
    });
    const retries: RetryInfo[] = [];
    const { message } = await run(modelAt(server.url), { retry: fast, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "Olá!" }]);
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, maxRetries: 3, delayMs: 0 });
    expect(retries[0]?.reason).toContain("429");
    expect(retries[0]?.reason).toContain("Rate limit reached for requests");
  });

  it("retries a 500 and then succeeds", async () => {
    const server = await serve(async (_request, response, index) => {
      if (index === 0) {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end("upstream exploded");
        return;
      }
      await writeChunks(response, [okBody()], "text/event-stream");
    });
    const retries: RetryInfo[] = [];
    const { message } = await run(modelAt(server.url), { retry: fast, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("stop");
    expect(message.usage.output).toBe(75);
    expect(retries.map((info) => info.attempt)).toEqual([1]);
  });

  it("gives up after maxRetries when the server always answers 500, and says so", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "The server had an error" } }));
    });
    const { message, events } = await run(modelAt(server.url), { retry: { maxRetries: 2, baseDelayMs: 1 } });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("500");
    expect(message.errorMessage).toContain("The server had an error");
    expect(message.errorMessage).toContain("gave up after 3 attempts");
    expect(server.requests).toHaveLength(3);
    expect(events.at(-1)?.type).toBe("error");
  });

  it("does not retry a 400 and surfaces the provider's own message", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "Invalid value for 'temperature': must be <= 2", code: null } }));
    });
    const retries: RetryInfo[] = [];
    const { message } = await run(modelAt(server.url), { retry: fast, onRetry: (info) => retries.push(info) });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Invalid value for 'temperature': must be <= 2");
    expect(message.errorMessage).toContain("400");
    expect(server.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it("fails at once when retry-after asks for a wait beyond the cap", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "3600" });
      response.end(JSON.stringify({ error: { message: "Quota exhausted" } }));
    });
    const started = Date.now();
    const { message } = await run(modelAt(server.url), { retry: { maxDelayMs: 5_000, baseDelayMs: 1 } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("3600 s");
    expect(message.errorMessage).toMatch(
      /the server asked to wait 3600 s \(until \d\d:\d\d UTC\) before retrying, longer than the 5 s limit \(retry\.maxDelayMs\), so gyre did not wait; try again then, or raise retry\.maxDelayMs to let gyre wait\.$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("retries a refused connection, then reports it", async () => {
    const server = await startLocalServer(() => {});
    const url = server.url;
    await server.close();
    const retries: RetryInfo[] = [];
    const { message } = await run(modelAt(url), {
      retry: { maxRetries: 2, baseDelayMs: 1 },
      onRetry: (info) => retries.push(info),
    });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Could not reach testprovider");
    expect(message.errorMessage).toContain("gave up after 3 attempts");
    expect(retries.map((info) => info.attempt)).toEqual([1, 2]);
  });

  it("ends a stream whose connection drops mid-way as an error, keeping the partial text", async () => {
    let sawText!: () => void;
    const textSeen = new Promise<void>((resolve) => {
      sawText = resolve;
    });
    const server = await serve(async (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(textChunk("Hello, "));
      response.write(textChunk("wor"));
      await textSeen;
      response.socket?.destroy();
    });
    const { message, events } = await run(modelAt(server.url), {}, (event) => {
      if (event.type === "text_delta" && event.delta === "wor") sawText();
    });
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "Hello, wor" }]);
    expect(message.errorMessage).toMatch(/connection broke|ended before/);
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  it("ends a clean end of stream without finish_reason or [DONE] as an error", async () => {
    const server = await serve(async (_request, response) => {
      await writeChunks(response, [Buffer.from(textChunk("partial"))], "text/event-stream");
    });
    const { message, events } = await run(modelAt(server.url));
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "partial" }]);
    expect(message.errorMessage).toContain("ended before the provider sent its final event");
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  it("ends a stream that goes silent past idleTimeoutMs as an error within the timeout", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(textChunk("thinking about it"));
      // then nothing: the connection stays open until the server closes
    });
    const started = Date.now();
    const { message } = await run(modelAt(server.url), { idleTimeoutMs: 150 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1_500);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("sent nothing");
    expect(message.content).toEqual([{ type: "text", text: "thinking about it" }]);
  });

  it("ends a stream with malformed SSE data as an error naming the bad payload", async () => {
    const server = await serve(async (_request, response) => {
      const body = `${textChunk("ok")}data: {"choices": [ {"delta": \n\ndata: [DONE]\n\n`;
      await writeChunks(response, [Buffer.from(body)], "text/event-stream");
    });
    const { message } = await run(modelAt(server.url));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("malformed stream event");
    expect(message.errorMessage).toContain('{"choices": [ {"delta":');
  });

  it("ends an aborted stream as aborted within 200 ms, keeping the partial content", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(textChunk("partial answer"));
    });
    const { message, events, msAfterAbort } = await runAbortingAtFirstText(modelAt(server.url));
    expect(msAfterAbort).toBeLessThan(200);
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "partial answer" }]);
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "aborted" });
  });
});

describe("openai-responses under faults", () => {
  it("ends a stream without response.completed as an error, keeping the partial text", async () => {
    const body = loadFixtureBody("openai-responses/openai-codex-step4-text-after-tools.jsonl", "openai-responses");
    const cut = body.toString("utf8").split("event: response.output_text.done")[0] ?? "";
    const server = await serve(async (_request, response) => {
      await writeChunks(response, splitBody(Buffer.from(cut), { seed: 5 }), "text/event-stream");
    });
    const { message, events } = await run(modelAt(server.url, "openai-responses"));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("ended before the provider sent its final event");
    expect(message.content).toEqual([{ type: "text", text: "The final result is **570**." }]);
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  it("retries a 503 and then parses the stream", async () => {
    const server = await serve(async (_request, response, index) => {
      if (index === 0) {
        response.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
        response.end(JSON.stringify({ error: { message: "overloaded" } }));
        return;
      }
      const body = loadFixtureBody("openai-responses/openai-codex-step4-text-after-tools.jsonl", "openai-responses");
      await writeChunks(response, [body], "text/event-stream");
    });
    const { message } = await run(modelAt(server.url, "openai-responses"), { retry: fast });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "The final result is **570**." }]);
    expect(server.requests).toHaveLength(2);
  });
});

describe("servers that answer wrongly before any stream", () => {
  it("retries a server that never sends response headers, then fails naming the wait", async () => {
    const server = await serve(() => {
      // Accept the request and never answer.
    });
    const started = Date.now();
    const { message } = await run(modelAt(server.url), {
      idleTimeoutMs: 150,
      retry: { maxRetries: 1, baseDelayMs: 1 },
    });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/sent no response within 150 ms/);
    expect(message.errorMessage).toMatch(/gave up after 2 attempts/);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("reports a 200 HTML page (a login portal) by its title instead of a missing stream end", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        "<!doctype html><html><head><title>Sign in to the corporate network</title></head><body>…</body></html>",
      );
    });
    const { message } = await run(modelAt(server.url), { retry: { maxRetries: 0 } });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Sign in to the corporate network");
    expect(message.errorMessage).toMatch(/base URL or proxy/);
  });
});
