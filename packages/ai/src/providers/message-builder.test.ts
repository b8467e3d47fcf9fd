import { describe, expect, it } from "vitest";
import { createTestModel } from "../../test/helpers/test-model.js";
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
});
