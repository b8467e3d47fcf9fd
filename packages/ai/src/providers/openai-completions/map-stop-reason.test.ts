import { describe, expect, it } from "vitest";
import { mapResponsesStopReason } from "../openai-responses/map-stop-reason.js";
import { mapCompletionsStopReason } from "./map-stop-reason.js";

describe("stop-reason mapping", () => {
  it("maps Chat Completions finish reasons, unknown ones by whether tools were called", () => {
    expect(mapCompletionsStopReason("stop", false)).toBe("stop");
    expect(mapCompletionsStopReason("stop", true)).toBe("toolUse");
    expect(mapCompletionsStopReason("tool_calls", true)).toBe("toolUse");
    expect(mapCompletionsStopReason("function_call", false)).toBe("toolUse");
    expect(mapCompletionsStopReason("length", false)).toBe("length");
    expect(mapCompletionsStopReason("content_filter", false)).toBe("error");
    expect(mapCompletionsStopReason("something_new", false)).toBe("stop");
    expect(mapCompletionsStopReason("something_new", true)).toBe("toolUse");
  });

  it("maps Responses statuses and incomplete reasons", () => {
    expect(mapResponsesStopReason("completed", undefined, false)).toBe("stop");
    expect(mapResponsesStopReason("completed", undefined, true)).toBe("toolUse");
    expect(mapResponsesStopReason("incomplete", "max_output_tokens", true)).toBe("length");
    expect(mapResponsesStopReason("incomplete", "content_filter", false)).toBe("error");
    expect(mapResponsesStopReason("failed", undefined, false)).toBe("error");
    expect(mapResponsesStopReason("brand_new_status", undefined, false)).toBe("stop");
  });
});
