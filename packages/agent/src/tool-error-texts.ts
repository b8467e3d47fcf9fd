/**
 * The texts of the error results the loop writes for the model. They are prompts: each says what
 * went wrong and what to do next.
 */
import { describeError, type ToolCall } from "@gyre/ai";
import type { DroppedArguments } from "./cap-tool-arguments.js";

const RAW_QUOTE_LIMIT = 2000;

/** `unavailable`: why an existing tool is not offered now, said instead of "does not exist". */
export function describeUnknownTool(name: string, available: string[], unavailable?: string): string {
  const list = available.length > 0 ? available.map((tool) => `"${tool}"`).join(", ") : "none";
  const why = unavailable ?? `Tool "${name}" does not exist.`;
  return `${why} Available tools: ${list}. Call one of these instead.`;
}

export function describeInvalidJson(toolCall: ToolCall): string {
  const raw = toolCall.rawArguments ?? "";
  const quoted = raw.length > RAW_QUOTE_LIMIT ? `${raw.slice(0, RAW_QUOTE_LIMIT)}… (${raw.length} characters)` : raw;
  return (
    `The arguments of this call to "${toolCall.name}" are not valid JSON, so it was not run. ` +
    `Received: ${quoted}\nRe-issue the call with its arguments as one valid JSON object.`
  );
}

export function describeInvalidArguments(name: string, problems: string[], args: Record<string, unknown>): string {
  return (
    `Invalid arguments for tool "${name}":\n${problems.map((problem) => `- ${problem}`).join("\n")}\n` +
    `Arguments received: ${JSON.stringify(args)}\nFix these problems and call the tool again.`
  );
}

export function describeTruncated(name: string): string {
  return (
    `This call to "${name}" was not run: the response hit the output-token limit (stopReason "length"), ` +
    "so its arguments may be truncated. Re-issue the call; if its arguments are large, split the work into smaller calls."
  );
}

export function describeFailedResponse(name: string, errorMessage: string | undefined): string {
  return `This call to "${name}" was not run because the model's response failed${errorMessage ? `: ${errorMessage}` : "."}`;
}

export function describeAborted(name: string, started: boolean): string {
  return started
    ? `The call to "${name}" was cancelled because the run was aborted; it may have partly run. Check its effects before repeating it.`
    : `The call to "${name}" was not run because the run was aborted.`;
}

export function describeBlocked(name: string, reason: string | undefined): string {
  return reason ?? `The call to "${name}" was blocked by a beforeToolCall hook; do not retry it unchanged.`;
}

export function describeHookFailure(hook: string, name: string, error: unknown): string {
  return `The ${hook} hook failed for "${name}": ${describeError(error)}`;
}

export function describePrepareFailure(name: string, error: unknown): string {
  return `The arguments of "${name}" could not be prepared: ${describeError(error)}`;
}

export function describeBadResult(name: string): string {
  return `The tool "${name}" returned no valid result (expected an object with a content array); this is a bug in the tool.`;
}

export function describeOversizedArguments(name: string, dropped: DroppedArguments): string {
  const size = formatBytes(dropped.bytes);
  const limit = formatBytes(dropped.limitBytes);
  return (
    `This call to "${name}" was not run: its arguments were ${size}, above the ${limit} limit for one tool call, ` +
    "so they were dropped from the conversation (you will not see them again). " +
    `Do the work in pieces of well under ${limit}: e.g. write the first part of a file, then add the rest with ` +
    "further edit calls or appends, or generate large content with a script instead of sending it inline."
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
