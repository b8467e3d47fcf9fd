/**
 * Wire quirks found in a second corpus of real streams (issue 13, "Wire quirks"), each replayed
 * from a recorded-style fixture of ours in `wire-quirks/<api>/` over a real local HTTP server,
 * whole and cut into random pieces, against the message it must become.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DROPPED_ARGUMENTS_KEY } from "../src/dropped-arguments.js";
import type { AssistantMessage, StreamOptions, ToolCall } from "../src/types.js";
import { type LocalServer, splitBody, startLocalServer, type WireApi, writeChunks } from "./helpers/local-server.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const quirksDir = new URL("./wire-quirks/", import.meta.url);

/** The bytes of a quirk fixture; a missing file fails with its name. */
function loadQuirk(api: WireApi, file: string): Buffer {
  return readFileSync(new URL(`${api}/${file}`, quirksDir));
}

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer(async (request, response) => {
    const [api, file, split] = [request.headers["x-api"], request.headers["x-fixture"], request.headers["x-split"]];
    const body = loadQuirk(String(api) as WireApi, String(file));
    const mode = split === "whole" ? "whole" : { seed: Number(split) };
    await writeChunks(response, splitBody(body, mode), "text/event-stream");
  });
});
afterAll(() => server.close());

/** Replays `file` whole and in three random cuts; every cut must give the same message. */
async function replay(api: WireApi, file: string, options: StreamOptions = {}): Promise<AssistantMessage> {
  const messages: AssistantMessage[] = [];
  for (const split of ["whole", "7", "21", "1234"]) {
    const model = createTestModel(api, api === "anthropic-messages" ? server.url : `${server.url}/v1`);
    const { message } = await run(model, {
      apiKey: "test-key",
      retry: { maxRetries: 0 },
      headers: { "x-api": api, "x-fixture": file, "x-split": split },
      ...options,
    });
    messages.push({ ...message, timestamp: 0 });
  }
  for (const message of messages.slice(1))
    expect(normalizeGeneratedIds(message)).toEqual(normalizeGeneratedIds(messages[0]!));
  return messages[0]!;
}

/** Generated ids are random; compare their places, not their values. */
function normalizeGeneratedIds(message: AssistantMessage): AssistantMessage {
  let count = 0;
  const content = message.content.map((block) =>
    block.type === "toolCall" && block.id.startsWith("call_gyre_") ? { ...block, id: `generated-${count++}` } : block,
  );
  return { ...message, content };
}

const toolCalls = (message: AssistantMessage) =>
  message.content.filter((block): block is ToolCall => block.type === "toolCall");

describe("Chat Completions wire quirks", () => {
  it("reads delta.content sent as typed parts as thinking and text, never [object Object]", async () => {
    const message = await replay("openai-completions", "content-parts-text-and-thinking.sse");
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The question asks for a capital city." },
      { type: "text", text: "Paris is the capital." },
    ]);
  });

  it("gives two id-less calls in separate chunks two unique generated ids", async () => {
    const message = await replay("openai-completions", "empty-tool-call-ids-separate-chunks.sse");
    const calls = toolCalls(message);
    expect(message.stopReason).toBe("toolUse");
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ["read", { path: "a.txt" }],
      ["read", { path: "b.txt" }],
    ]);
    expect(calls.every((call) => call.id.length > 0)).toBe(true);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it("keeps two calls that share an id on different indexes apart, each with its name and a unique id", async () => {
    const message = await replay("openai-completions", "duplicate-tool-call-ids.sse");
    const calls = toolCalls(message);
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ["read", { path: "a.txt" }],
      ["bash", { command: "ls" }],
    ]);
    expect(calls[0]?.id).toBe("call_0");
    expect(calls[1]?.id).not.toBe("call_0");
    expect(calls[1]?.id.length).toBeGreaterThan(0);
  });

  it("keeps two whole calls that share an id and an index apart", async () => {
    const message = await replay("openai-completions", "duplicate-tool-call-ids-same-index.sse");
    const calls = toolCalls(message);
    expect(calls.map((call) => call.arguments)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it("still tells a second call on the same id and index from the first when the first passed maxToolArgumentBytes", async () => {
    const message = await replay("openai-completions", "duplicate-tool-call-ids-same-index-over-limit.sse", {
      maxToolArgumentBytes: 20,
    });
    const calls = toolCalls(message);
    expect(calls.map((call) => call.name)).toEqual(["write", "read"]);
    expect(calls[0]?.arguments).toEqual({
      path: "a.txt",
      [DROPPED_ARGUMENTS_KEY]: expect.objectContaining({ bytes: 39, limitBytes: 20 }),
    });
    expect(calls[1]?.arguments).toEqual({ path: "b.txt" });
  });
});

describe("Anthropic wire quirks", () => {
  it("makes duplicate tool_use ids within one message unique", async () => {
    const message = await replay("anthropic-messages", "duplicate-tool-use-ids.sse");
    const calls = toolCalls(message);
    expect(message.stopReason).toBe("toolUse");
    expect(calls.map((call) => call.arguments)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(calls[0]?.id).toBe("toolu_dup");
    expect(calls[1]?.id).not.toBe("toolu_dup");
  });
});
