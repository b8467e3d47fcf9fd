import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRegisteredApis, registerApi, stream, streamOpenAICompletions } from "../index.js";
import type { AssistantMessageEvent, Model } from "../types.js";
import { createLazyStreamFunction } from "./create-lazy-stream-function.js";
import { createFauxModel, streamFaux } from "./faux/stream.js";
import { streamOpenAICompletions as streamOpenAICompletionsDirectly } from "./openai-completions/stream.js";

const sse = [
  { id: "c1", choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }] },
  { id: "c1", choices: [{ index: 0, delta: { content: "lo" } }] },
  { id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join("")
  .concat("data: [DONE]\n\n");

let server: Server;
let model: Model;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sse);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  model = {
    id: "test-model",
    name: "Test",
    api: "openai-completions",
    provider: "test",
    baseUrl: `http://127.0.0.1:${port}/v1`,
    reasoning: false,
    input: ["text"],
    contextWindow: 8000,
    maxTokens: 100,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Events without the wall-clock stamps, which differ between two runs. */
async function collect(events: AsyncIterable<AssistantMessageEvent>): Promise<unknown[]> {
  const collected: unknown[] = [];
  for await (const event of events) collected.push(withoutTimestamps(event));
  return collected;
}

function withoutTimestamps(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, item) => (key === "timestamp" ? undefined : item));
}

const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 1 }] };

describe("lazily registered providers", () => {
  it("streams the same events through stream() as calling the provider module directly", async () => {
    const direct = await collect(streamOpenAICompletionsDirectly(model, context, { apiKey: "k" }));
    const lazy = await collect(stream(model, context, { apiKey: "k" }));
    expect(direct.map((event) => (event as AssistantMessageEvent).type)).toContain("text_delta");
    expect(direct.at(-1)).toMatchObject({ type: "done" });
    expect(lazy).toEqual(direct);
    expect(await collect(streamOpenAICompletions(model, context, { apiKey: "k" }))).toEqual(direct);
  });

  it("forwards every event of a wrapped stream function registered with registerApi", async () => {
    const script = [{ content: [{ type: "text" as const, text: "one two three" }] }];
    const direct = await collect(streamFaux(createFauxModel(script).model, context));
    const faux = createFauxModel(script);
    registerApi(
      "lazy-faux",
      createLazyStreamFunction("lazy-faux", async () => streamFaux),
    );
    expect(getRegisteredApis()).toContain("lazy-faux");
    const lazy = await collect(stream({ ...faux.model, api: "lazy-faux" }, context));
    expect(lazy.length).toBeGreaterThan(3);
    expect(lazy).toEqual(
      direct.map((event) => JSON.parse(JSON.stringify(event), (key, item) => (key === "api" ? "lazy-faux" : item))),
    );
  });

  it("ends the stream with error when the provider module fails to load, and returns at once", async () => {
    const failing = createLazyStreamFunction("broken", () => Promise.reject(new Error("Cannot find module 'x'")));
    const response = failing({ ...model, api: "broken" }, context, {});
    expect(response.isEnded).toBe(false);
    const events = await collect(response);
    expect(events.map((event) => (event as AssistantMessageEvent).type)).toEqual(["start", "error"]);
    const message = await response.result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("The broken provider failed to load: Cannot find module 'x'");
  });

  it("ends the stream with error when the loaded function throws instead of returning a stream", async () => {
    const throwing = createLazyStreamFunction("throwing", async () => () => {
      throw new Error("boom");
    });
    const message = await throwing({ ...model, api: "throwing" }, context, {}).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/boom/);
  });
});
