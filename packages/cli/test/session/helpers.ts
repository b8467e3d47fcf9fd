/** Helpers for session tests: temp dirs, fixture copies and message builders. */
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@gyre/ai";
import { createEmptyUsage } from "@gyre/ai";
import { onTestFinished } from "vitest";

const fixturesDir = new URL("./fixtures/v1/", import.meta.url).pathname;

/** Path of a committed fixture (read-only use). */
export function fixturePath(name: string): string {
  return join(fixturesDir, name);
}

/** A fresh temp dir, removed after the test (registered per test: e2e files share this module). */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-session-test-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Copies a fixture into a temp dir so a test may append to it. */
export async function copyFixture(name: string): Promise<string> {
  const path = join(await tempDir(), name);
  await copyFile(fixturePath(name), path);
  return path;
}

export function userMessage(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

export function assistantMessage(
  content: AssistantMessage["content"],
  stopReason: AssistantMessage["stopReason"] = "stop",
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: createEmptyUsage(),
    stopReason,
    timestamp: Date.now(),
  };
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function toolResult(toolCallId: string, toolName: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: Date.now(),
  };
}
