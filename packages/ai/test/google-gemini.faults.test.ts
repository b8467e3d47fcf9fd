import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamGoogleGemini } from "../src/providers/google-gemini/stream.js";
import type { Model, StreamOptions } from "../src/types.js";
import { type LocalServer, startLocalServer } from "./helpers/local-server.js";
import { runAbortingAtFirstText } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const chunk = (parts: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: "model", parts }, ...extra }],
  responseId: "resp-1",
});
const data = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;
const usageMetadata = {
  promptTokenCount: 20,
  cachedContentTokenCount: 5,
  candidatesTokenCount: 3,
  totalTokenCount: 23,
};
const partial = data(chunk([{ text: "Partial ans" }]));
const ending = (finishReason: string, finishMessage?: string) =>
  data({ ...chunk([{ text: "wer" }], { finishReason, ...(finishMessage ? { finishMessage } : {}) }), usageMetadata });

const sse = (response: ServerResponse, body: string, end = true) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  if (end) response.end(body);
  else response.write(body);
};

const scenarios: Record<string, (response: ServerResponse) => void> = {
  safety: (response) => sse(response, partial + ending("SAFETY")),
  "max-tokens": (response) => sse(response, partial + ending("MAX_TOKENS")),
  unknown: (response) => sse(response, partial + ending("SOMETHING_NEW", "New reason.")),
  "no-finish": (response) => sse(response, partial),
  "error-chunk": (response) =>
    sse(response, partial + data({ error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" } })),
  "cut-array": (response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(`[${JSON.stringify(chunk([{ text: "Partial ans" }]))}\n,\r\n{"candidates": [`);
  },
  "code-between-text": (response) =>
    sse(
      response,
      data(chunk([{ text: "Computing." }, { executableCode: { language: "PYTHON", code: "print(1)" } }])) +
        data(chunk([{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } }, { text: "It is 1." }])) +
        ending("STOP"),
    ),
  hang: (response) => sse(response, partial, false),
};

let server: LocalServer;
let model: Model;
beforeAll(async () => {
  server = await startLocalServer((request, response) => {
    scenarios[String(request.headers["x-scenario"])]?.(response);
  });
  model = createTestModel("google-gemini", server.url);
});
afterAll(() => server.close());

const run = (scenario: string, options: StreamOptions = {}) =>
  streamGoogleGemini(
    model,
    { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
    { apiKey: "k", retry: { maxRetries: 0 }, ...options, headers: { "x-scenario": scenario } },
  );

describe("google-gemini faults and finish reasons", () => {
  it("ends SAFETY as an error that names the reason, keeping text and usage", async () => {
    const message = await run("safety").result();
    expect(message).toMatchObject({ stopReason: "error", rawStopReason: "SAFETY" });
    expect(message.errorMessage).toBe(
      "Gemini stopped with SAFETY: the response was flagged by Google's safety filters.",
    );
    expect(message.content).toEqual([{ type: "text", text: "Partial answer" }]);
    expect(message.usage).toMatchObject({ input: 15, output: 3, cacheRead: 5, totalTokens: 23 });
  });

  it("maps MAX_TOKENS to length and an unknown reason to an error quoting Google's message", async () => {
    expect(await run("max-tokens").result()).toMatchObject({ stopReason: "length", rawStopReason: "MAX_TOKENS" });
    const unknown = await run("unknown").result();
    expect(unknown).toMatchObject({ stopReason: "error", rawStopReason: "SOMETHING_NEW" });
    expect(unknown.errorMessage).toMatch(/SOMETHING_NEW.*New reason\./);
  });

  it("treats a body without a finish reason as an error", async () => {
    const message = await run("no-finish").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/ended before/);
    expect(message.content).toEqual([{ type: "text", text: "Partial ans" }]);
  });

  it("ends on an error object inside a 200 stream with Google's message", async () => {
    const message = await run("error-chunk").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("Gemini stream error (INTERNAL): Internal error encountered.");
    expect(message.content).toEqual([{ type: "text", text: "Partial ans" }]);
  });

  it("treats a JSON-array body cut mid-element as an error", async () => {
    const message = await run("cut-array").result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/middle of its JSON array/);
    expect(message.content).toEqual([{ type: "text", text: "Partial ans" }]);
  });

  it("skips code-execution parts and keeps the text on either side as separate blocks", async () => {
    const message = await run("code-between-text").result();
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([
      { type: "text", text: "Computing." },
      { type: "text", text: "It is 1.wer" },
    ]);
  });

  it("ends as aborted within 200 ms of an abort mid-stream, keeping the partial text", async () => {
    const { message, msAfterAbort } = await runAbortingAtFirstText(model, {
      apiKey: "k",
      retry: { maxRetries: 0 },
      headers: { "x-scenario": "hang" },
    });
    expect(msAfterAbort).toBeLessThan(200);
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "Partial ans" }]);
  });
});
