import { describe, expect, it } from "vitest";
import { applyAssistantMessageEvent } from "./apply-assistant-message-event.js";
import { stream } from "./index.js";
import { parsePartialJson } from "./partial-json.js";
import { createFauxModel } from "./providers/faux/stream.js";
import type { AssistantMessage, AssistantMessageEvent } from "./types.js";

describe("applyAssistantMessageEvent", () => {
  it("rebuilds the final message from deltas alone", async () => {
    const faux = createFauxModel([
      {
        content: [
          { type: "thinking", thinking: "let me think about this" },
          { type: "text", text: "Here is the answer you wanted." },
          { type: "toolCall", name: "read", arguments: { path: "src/index.ts", limit: 20 }, id: "t1" },
        ],
      },
    ]);
    let partial: AssistantMessage | undefined;
    const events: AssistantMessageEvent[] = [];
    const response = stream(faux.model, { messages: [] });
    for await (const event of response) {
      events.push(event);
      if (event.type === "start") partial = { ...event.message, content: [...event.message.content] };
      else if (partial) applyAssistantMessageEvent(partial, event);
    }
    const final = await response.result();
    // Tool calls are whole once their toolcall_end arrived; the rest is the deltas appended.
    expect(partial?.content).toEqual(final.content);
  });

  it("survives a JSON round trip of every event and the final message", async () => {
    const faux = createFauxModel([
      { content: [{ type: "text", text: "partial answer" }], error: "boom" },
      { content: [{ type: "toolCall", name: "x", arguments: "{bad" }], stopReason: "length" },
    ]);
    for (let i = 0; i < 2; i++) {
      const response = stream(faux.model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
      for await (const event of response) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
      const final = await response.result();
      expect(JSON.parse(JSON.stringify(final))).toEqual(final);
    }
  });
});

describe("parsePartialJson", () => {
  it("closes open strings, arrays and objects", () => {
    expect(parsePartialJson('{"path": "src/ma')).toEqual({ path: "src/ma" });
    expect(parsePartialJson('{"a": [1, 2')).toEqual({ a: [1, 2] });
    expect(parsePartialJson('{"a": 1, "b"')).toEqual({ a: 1 });
    expect(parsePartialJson("")).toEqual({});
  });

  it("keeps literals and numbers cut mid-stream instead of dropping everything", () => {
    expect(parsePartialJson('{"a":"x","b":tr')).toEqual({ a: "x", b: true });
    expect(parsePartialJson('{"a":{"b":nul')).toEqual({ a: { b: null } });
    expect(parsePartialJson('{"a":"x","b":fal')).toEqual({ a: "x", b: false });
    expect(parsePartialJson('{"a":"x","n":12')).toEqual({ a: "x", n: 12 });
    expect(parsePartialJson('{"a":"x","n":1.')).toEqual({ a: "x", n: 1 });
    expect(parsePartialJson('{"a":"x","n":-')).toEqual({ a: "x" });
    expect(parsePartialJson('{"a":[true,fa')).toEqual({ a: [true, false] });
  });
});
