/**
 * `gyre replay`'s core: splits a recorded session into its requests (one per user message), turns
 * each request's model outputs into a faux script (texts, thinking, tool calls with their ids,
 * verbatim) and keeps the tool results it got, then compares those, request by request and in
 * order, with the results this build's tools give when the scripts are replayed. Paths of the
 * recorded and the replay workspace are written `<workspace>` before comparing, and volatile
 * output (durations, timestamps, clock times; plus the user's `--ignore` patterns) is masked.
 */
import type { AgentMessage } from "@gyre/agent";
import type { FauxBlock, FauxResponse } from "@gyre/ai/testing";
import { createUnifiedDiff } from "gyre/fleet-support";

/**
 * What changes from run to run in honest tool output, masked on both sides before comparing:
 * test runners' durations (`# duration_ms 344.53`, `Duration 2.54s`, `(12 ms)`), ISO timestamps
 * and clock times.
 */
export const VOLATILE_PATTERNS: readonly RegExp[] = [
  /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g,
  /\b(duration(?:_ms)?|elapsed(?:_ms)?|time(?:_ms)?|took)(["']?\s*[:=]?\s*)\d+(?:\.\d+)?/gi,
  /\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds|milliseconds|m)\b/g,
  /\b\d\d:\d\d:\d\d(?:\.\d+)?\b/g,
];

/** `text` with every match of the volatile patterns and `extra` replaced by a placeholder. */
export function maskVolatile(text: string, extra: readonly RegExp[] = []): string {
  let masked = text;
  for (const [index, pattern] of VOLATILE_PATTERNS.entries())
    masked = masked.replace(pattern, index === 1 ? "$1$2<n>" : "<volatile>");
  for (const pattern of extra) masked = masked.replace(pattern, "<ignored>");
  return masked;
}

export type RecordedRequest = {
  prompt: string;
  script: FauxResponse[];
  results: RecordedResult[];
};

export type RecordedResult = {
  toolCallId: string;
  toolName: string;
  isError: boolean;
  text: string;
  /** Which model response of its request (1-based) asked for the call. */
  turn: number;
};

export type ReplayDifference = {
  /** 1-based: the request and the tool result's place in it. */
  request: number;
  turn: number;
  toolName: string;
  arguments: string;
  recorded?: RecordedResult;
  replayed?: RecordedResult;
};

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  return typeof content === "string"
    ? content
    : content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("");
}

type AssistantMessage = Extract<AgentMessage, { role: "assistant" }>;

/** The model's output as a faux response; a provider's server-side blocks (web search) ran there and are left out. */
function fauxResponseOf(message: AssistantMessage): FauxResponse {
  const content = message.content.flatMap((block): FauxBlock[] => {
    if (block.type === "toolCall")
      return [{ type: "toolCall", id: block.id, name: block.name, arguments: block.rawArguments ?? block.arguments }];
    if (block.type === "thinking") return [{ type: "thinking", thinking: block.thinking }];
    if (block.type === "text") return [{ type: "text", text: block.text }];
    return [];
  });
  return { content, ...(message.stopReason === "length" ? { stopReason: "length" } : {}) };
}

/**
 * Every request of a branch, in order: each user message starts one and holds the model outputs
 * and tool results up to the next. Throws when the branch has no user message.
 */
export function recordedRequests(messages: readonly AgentMessage[]): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  const turnOfCall = new Map<string, number>();
  for (const message of messages) {
    if (message.role === "user") {
      requests.push({ prompt: textOf(message.content), script: [], results: [] });
      continue;
    }
    const request = requests.at(-1);
    if (request === undefined) continue;
    if (message.role === "assistant") {
      // An aborted or failed response was cut by the harness or the network, not said by the model.
      if (message.stopReason === "aborted" || message.stopReason === "error") continue;
      request.script.push(fauxResponseOf(message));
      for (const block of message.content)
        if (block.type === "toolCall") turnOfCall.set(block.id, request.script.length);
    }
    if (message.role === "toolResult")
      request.results.push({
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        isError: message.isError,
        text: textOf(message.content),
        turn: turnOfCall.get(message.toolCallId) ?? request.script.length,
      });
  }
  if (requests.length === 0) throw new Error("The session holds no user message: there is nothing to replay.");
  return requests;
}

/** Pairs recorded and replayed results by request and position; every pair that differs (or is missing) is listed. */
export function compareRequests(
  recorded: readonly RecordedRequest[],
  replayed: readonly RecordedRequest[],
  workspaces: { recorded: string; replayed: string },
  ignore: readonly RegExp[] = [],
): ReplayDifference[] {
  const normalise = (result: RecordedResult | undefined, cwd: string) =>
    result === undefined
      ? undefined
      : {
          ...result,
          text: maskVolatile(cwd === "" ? result.text : result.text.split(cwd).join("<workspace>"), ignore),
        };
  const differences: ReplayDifference[] = [];
  for (let request = 0; request < Math.max(recorded.length, replayed.length); request++) {
    const before = recorded[request]?.results ?? [];
    const after = replayed[request]?.results ?? [];
    const calls = callsOf(recorded[request]?.script ?? replayed[request]?.script ?? []);
    for (let index = 0; index < Math.max(before.length, after.length); index++) {
      const expected = normalise(before[index], workspaces.recorded);
      const got = normalise(after[index], workspaces.replayed);
      const same =
        expected !== undefined &&
        got !== undefined &&
        expected.toolName === got.toolName &&
        expected.isError === got.isError &&
        expected.text === got.text;
      if (same) continue;
      const result = (expected ?? got) as RecordedResult;
      differences.push({
        request: request + 1,
        turn: result.turn,
        toolName: result.toolName,
        arguments: calls.get(result.toolCallId)?.arguments ?? "",
        ...(expected ? { recorded: expected } : {}),
        ...(got ? { replayed: got } : {}),
      });
    }
  }
  return differences;
}

/** The tool calls of a faux script by id (name and arguments as JSON), for the report. */
function callsOf(script: readonly FauxResponse[]): Map<string, { name: string; arguments: string }> {
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const response of script)
    for (const block of response.content ?? [])
      if (block.type === "toolCall" && block.id !== undefined)
        calls.set(block.id, {
          name: block.name,
          arguments: typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments),
        });
  return calls;
}

/**
 * A short line diff of two texts: only the lines that differ (a line diff, so lines common to
 * both are never listed), at most `limit` of each side, with the line number where they part.
 */
export function shortDiff(expected: string, got: string, limit = 3): string[] {
  const { diff, firstChangedLine } = createUnifiedDiff(expected, got, "result");
  if (firstChangedLine === undefined) return [];
  const changed = diff.split("\n").slice(2);
  const side = (mark: "-" | "+") => {
    const lines = changed.filter((line) => line.startsWith(mark)).map((line) => `${mark} ${line.slice(1)}`);
    return lines.length > limit ? [...lines.slice(0, limit), `${mark} … ${lines.length - limit} more line(s)`] : lines;
  };
  return [`@@ line ${firstChangedLine}`, ...side("-"), ...side("+")];
}

/** The differences as readable lines: where (request, turn, call), expected, got, and a short diff. */
export function renderDifferences(differences: readonly ReplayDifference[]): string {
  const clip = (text: string) => (text.length > 800 ? `${text.slice(0, 800)}… (${text.length} characters)` : text);
  const show = (result: RecordedResult | undefined) =>
    result === undefined ? "(no result)" : `${result.isError ? "[error] " : ""}${clip(result.text)}`;
  const indent = (text: string) => text.replace(/\n/g, "\n            ");
  return differences
    .map((difference) => {
      const { recorded, replayed } = difference;
      const diff =
        recorded !== undefined && replayed !== undefined && recorded.text !== replayed.text
          ? `  diff:     ${indent(shortDiff(recorded.text, replayed.text).join("\n"))}\n`
          : "";
      return (
        `request ${difference.request}, turn ${difference.turn}: ${difference.toolName} ${clip(difference.arguments)} gives another result\n` +
        `  expected: ${indent(show(recorded))}\n` +
        `  got:      ${indent(show(replayed))}\n${diff}`
      );
    })
    .join("");
}
