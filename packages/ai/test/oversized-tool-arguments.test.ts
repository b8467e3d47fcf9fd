/**
 * A huge streamed tool call is bounded while it streams (issue 13): past
 * `maxToolArgumentBytes` the builder keeps only the call's length and name, so a 64 MB `write`
 * never sits in memory whole, and the finished call carries the `gyreDroppedArguments` marker.
 */
import type { ServerResponse } from "node:http";
import { getHeapSpaceStatistics } from "node:v8";
import { afterEach, describe, expect, it } from "vitest";
import { DROPPED_ARGUMENTS_KEY, readDroppedArguments } from "../src/dropped-arguments.js";
import type { StreamOptions, ToolCall } from "../src/types.js";
import { type LocalServer, startLocalServer, type WireApi } from "./helpers/local-server.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const CHUNK = "a".repeat(16 * 1024);
const CHUNKS = 4096;
/** 64 MiB of `content`, plus the JSON around it. */
const PAYLOAD_BYTES = CHUNK.length * CHUNKS;
const LIMIT = 1024 * 1024;

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One API's events: `start`, `chunk`s and `end` carry `{"path":"big.txt","content":"aaaa…"}` between `head` and `tail`. */
type Framing = { head: string[]; start: string; chunk: (text: string) => string; end: string; tail: string[] };

/** Framing for APIs that stream the arguments as JSON text. */
function textFraming(head: string[], delta: (text: string) => string, tail: string[]): Framing {
  return { head, start: delta('{"path":"big.txt","content":"'), chunk: delta, end: delta('"}'), tail };
}

/** A Vertex Gemini chunk with one `functionCall` part. */
const geminiCall = (functionCall: Record<string, unknown>) =>
  sse(undefined, { candidates: [{ content: { role: "model", parts: [{ functionCall }] } }] });

const sse = (type: string | undefined, data: unknown) =>
  `${type ? `event: ${type}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

/** Each API's events for one `write` call whose argument text goes out in pieces. */
const framings: Record<WireApi, Framing> = {
  "openai-completions": textFraming(
    [
      sse(undefined, {
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: "call_big", type: "function", function: { name: "write" } }] },
          },
        ],
      }),
    ],
    (text) =>
      sse(undefined, { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: text } }] } }] }),
    [sse(undefined, { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }), "data: [DONE]\n\n"],
  ),
  "openai-responses": textFraming(
    [
      sse("response.created", { type: "response.created", response: { id: "resp_1", status: "in_progress" } }),
      sse("response.output_item.added", {
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "call_big", name: "write", arguments: "" },
      }),
    ],
    (text) =>
      sse("response.function_call_arguments.delta", {
        type: "response.function_call_arguments.delta",
        output_index: 0,
        item_id: "fc_1",
        delta: text,
      }),
    [
      sse("response.output_item.done", {
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "call_big", name: "write", status: "completed" },
      }),
      sse("response.completed", { type: "response.completed", response: { id: "resp_1", status: "completed" } }),
    ],
  ),
  "anthropic-messages": textFraming(
    [
      sse("message_start", {
        type: "message_start",
        message: { id: "msg_1", role: "assistant", content: [], usage: { input_tokens: 1, output_tokens: 1 } },
      }),
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_big", name: "write", input: {} },
      }),
    ],
    (text) =>
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: text },
      }),
    [
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } }),
      sse("message_stop", { type: "message_stop" }),
    ],
  ),
  // Vertex streamed arguments: the reader rebuilds the object from `partialArgs` itself.
  "google-gemini": {
    head: [geminiCall({ name: "write", willContinue: true })],
    start: geminiCall({
      partialArgs: [
        { jsonPath: "$.path", stringValue: "big.txt", willContinue: true },
        { jsonPath: "$.path", stringValue: "" },
      ],
      willContinue: true,
    }),
    chunk: (text) =>
      geminiCall({
        partialArgs: [{ jsonPath: "$.content", stringValue: text, willContinue: true }],
        willContinue: true,
      }),
    end: geminiCall({ partialArgs: [{ jsonPath: "$.content", stringValue: "" }] }),
    tail: [sse(undefined, { candidates: [{ finishReason: "STOP" }] })],
  },
};

/** Writes one piece, waiting for the socket to drain so the server never queues the payload. */
async function send(response: ServerResponse, text: string): Promise<void> {
  if (!response.write(text)) await new Promise((resolve) => response.once("drain", resolve));
}

/** Streams `{"path":"big.txt","content":"aaaa…"}` (64 MiB) in 16 KiB argument pieces (small enough to die young, as real token deltas do), built as they go out. */
async function serveHugeCall(api: WireApi): Promise<LocalServer> {
  const framing = framings[api];
  return startLocalServer(async (_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const event of framing.head) await send(response, event);
    await send(response, framing.start);
    for (let index = 0; index < CHUNKS; index++) await send(response, framing.chunk(CHUNK));
    await send(response, framing.end);
    for (const event of framing.tail) await send(response, event);
    response.end();
  });
}

/**
 * The heap outside the young generation: what survived a scavenge. Short-lived garbage (each
 * parsed SSE event) fills the young generation by up to tens of MB whatever the builder keeps, so
 * it is left out; text the builder holds is promoted and counted.
 */
function heapBeyondYoung(): number {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_used_size ?? 0;
  return process.memoryUsage().heapUsed - young;
}

/** Runs one request and samples the heap through it; returns the call and the peak rise over the start. */
async function streamMeasured(api: WireApi, options: StreamOptions) {
  server = await serveHugeCall(api);
  const start = heapBeyondYoung();
  let peak = start;
  const sample = () => {
    peak = Math.max(peak, heapBeyondYoung());
  };
  const timer = setInterval(sample, 2);
  let deltaChars = 0;
  const { message } = await run(createTestModel(api, server.url), options, (event) => {
    if (event.type === "toolcall_delta") deltaChars += event.delta.length;
    sample();
  });
  sample();
  clearInterval(timer);
  const call = message.content.find((block): block is ToolCall => block.type === "toolCall");
  return { message, call, rise: peak - start, deltaChars };
}

describe("a huge streamed tool call", () => {
  for (const api of Object.keys(framings) as WireApi[]) {
    it(`is kept as its length and name only past maxToolArgumentBytes (${api})`, async () => {
      const { message, call, rise, deltaChars } = await streamMeasured(api, {
        apiKey: "k",
        maxToolArgumentBytes: LIMIT,
      });
      expect(message.errorMessage).toBeUndefined();
      expect(message.stopReason).toBe("toolUse");
      expect(call?.name).toBe("write");
      expect(call?.rawArguments).toBeUndefined();
      // The short field in the head of the text survives; the content does not.
      expect(call?.arguments).toEqual({
        path: "big.txt",
        [DROPPED_ARGUMENTS_KEY]: expect.objectContaining({
          tool: "write",
          // Gemini's size is the reader's own count of the fragments, a little above the content.
          bytes:
            api === "google-gemini" ? expect.any(Number) : PAYLOAD_BYTES + '{"path":"big.txt","content":""}'.length,
          limitBytes: LIMIT,
        }),
      });
      expect(readDroppedArguments(call?.arguments ?? {})?.bytes).toBeGreaterThan(PAYLOAD_BYTES);
      expect(deltaChars).toBeLessThanOrEqual(LIMIT);
      expect(rise).toBeLessThan(PAYLOAD_BYTES / 4);
    }, 60_000);
  }

  it("is held whole without the option, so the bound above is the option's doing", async () => {
    const { call, rise } = await streamMeasured("openai-completions", { apiKey: "k" });
    expect((call?.arguments.content as string | undefined)?.length).toBe(PAYLOAD_BYTES);
    expect(rise).toBeGreaterThan(PAYLOAD_BYTES / 2);
  }, 60_000);
});
