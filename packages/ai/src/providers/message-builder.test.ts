import { describe, expect, it } from "vitest";
import { createTestModel } from "../../test/helpers/test-model.js";
import { DROPPED_ARGUMENTS_KEY } from "../dropped-arguments.js";
import { AssistantMessageEventStream } from "../event-stream.js";
import type { AssistantMessageEvent } from "../types.js";
import { MessageBuilder } from "./message-builder.js";
import { createStrictNullRemover } from "./openai-shared.js";

const model = createTestModel("openai-completions", "http://127.0.0.1:1");

/** A stream that records each event as JSON the moment it is pushed, as an eager consumer sees it. */
class SnapshotStream extends AssistantMessageEventStream {
  readonly snapshots: AssistantMessageEvent[] = [];
  override push(event: AssistantMessageEvent): void {
    this.snapshots.push(structuredClone(event));
    super.push(event);
  }
}

describe("MessageBuilder", () => {
  it("applies finalizeToolCall before toolcall_end, so strict-mode nulls never reach a consumer", () => {
    const stream = new SnapshotStream();
    const builder = new MessageBuilder(model, stream);
    builder.finalizeToolCall = createStrictNullRemover(
      new Map([
        [
          "read",
          { type: "object", properties: { path: { type: "string" }, limit: { type: "number" } }, required: ["path"] },
        ],
      ]),
    );
    builder.start();
    builder.toolCallStart("0", "call_1", "read");
    builder.toolCallDelta("0", '{"path":"a.txt","limit":null}');
    builder.end("0");
    const end = stream.snapshots.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall.arguments).toEqual({ path: "a.txt" });
    expect(builder.message.content[0]).toMatchObject({ arguments: { path: "a.txt" } });
  });

  it("stops keeping a call's text past maxToolArgumentBytes and ends it as the placeholder with its complete short fields", () => {
    const stream = new SnapshotStream();
    const builder = new MessageBuilder(model, stream, { maxToolArgumentBytes: 64 });
    builder.start();
    builder.toolCallStart("0", "call_1", "write");
    builder.toolCallDelta("0", '{"path":"a.txt","mode":"ov');
    builder.toolCallDelta("0", `erwrite","content":"${"é".repeat(40)}`);
    builder.toolCallDelta("0", `${"é".repeat(40)}"}`);
    builder.end("0");
    const deltas = stream.snapshots.filter((event) => event.type === "toolcall_delta");
    expect(deltas).toHaveLength(1);
    const text = `{"path":"a.txt","mode":"overwrite","content":"${"é".repeat(80)}"}`;
    // Each "é" is 2 bytes of UTF-8.
    const expectedBytes = text.length + 80;
    const end = stream.snapshots.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall).toEqual({
      type: "toolCall",
      id: "call_1",
      name: "write",
      // "content" was cut by the limit, so it is left out even though it is short.
      arguments: {
        path: "a.txt",
        mode: "overwrite",
        [DROPPED_ARGUMENTS_KEY]: expect.objectContaining({ tool: "write", bytes: expectedBytes, limitBytes: 64 }),
      },
    });
    expect(builder.message.content[0]).toEqual(end?.type === "toolcall_end" ? end.toolCall : undefined);
  });

  it("keeps a call at the limit whole", () => {
    const builder = new MessageBuilder(model, new AssistantMessageEventStream(), { maxToolArgumentBytes: 16 });
    builder.start();
    builder.toolCallStart("0", "call_1", "read");
    builder.toolCallDelta("0", '{"path":"a.txt"}');
    builder.end("0");
    expect(builder.message.content[0]).toMatchObject({ arguments: { path: "a.txt" } });
  });
});
