import type { TurnEndContext } from "@gyre/agent";
import type { AssistantMessage, Model, ToolResultMessage } from "@gyre/ai";
import { describe, expect, it } from "vitest";
import { AutoCompaction } from "./auto-compaction.js";

const model = { contextWindow: 100_000 } as Model;

function turn(options: { usedTokens: number; toolResultChars: number }): TurnEndContext {
  const message = {
    role: "assistant",
    content: [],
    usage: { input: options.usedTokens, output: 0, cacheRead: 0, cacheWrite: 0 },
    stopReason: "toolUse",
    timestamp: 0,
  } as unknown as AssistantMessage;
  const toolResults: ToolResultMessage[] =
    options.toolResultChars > 0
      ? [
          {
            role: "toolResult",
            toolCallId: "call-1",
            toolName: "read",
            content: [{ type: "text", text: "x".repeat(options.toolResultChars) }],
            isError: false,
            timestamp: 0,
          } as ToolResultMessage,
        ]
      : [];
  return { turn: 1, message, toolResults, messages: [message, ...toolResults] };
}

describe("AutoCompaction.needsCompactionAfterTurn", () => {
  it("asks for a pause when the turn's context plus its tool results would pass the window minus the reserve", () => {
    const policy = new AutoCompaction({ reserveTokens: 10_000 }, 0);
    expect(policy.needsCompactionAfterTurn(turn({ usedTokens: 80_000, toolResultChars: 60_000 }), model)).toBe(true);
    expect(policy.needsCompactionAfterTurn(turn({ usedTokens: 80_000, toolResultChars: 400 }), model)).toBe(false);
  });

  it("never pauses a turn that ran no tools, or when compaction is off", () => {
    expect(
      new AutoCompaction({ reserveTokens: 10_000 }, 0).needsCompactionAfterTurn(
        turn({ usedTokens: 99_000, toolResultChars: 0 }),
        model,
      ),
    ).toBe(false);
    expect(
      new AutoCompaction({ enabled: false }, 0).needsCompactionAfterTurn(
        turn({ usedTokens: 99_000, toolResultChars: 60_000 }),
        model,
      ),
    ).toBe(false);
  });
});
