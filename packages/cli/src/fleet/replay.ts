/**
 * `gyre replay`'s core: splits a recorded session into its requests (one per user message), turns
 * each request's model outputs into a faux script (texts, thinking, tool calls with their ids,
 * verbatim) and keeps the tool results it got, then compares those, request by request and in
 * order, with the results this build's tools give when the scripts are replayed. Paths of the
 * recorded and the replay workspace are written `<workspace>` before comparing.
 */
import type { AgentMessage } from "@gyre/agent";
import type { FauxBlock, FauxResponse } from "@gyre/ai/testing";
import { commonLineEnds } from "../core/tools/diff.js";

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
): ReplayDifference[] {
  const normalise = (result: RecordedResult | undefined, cwd: string) =>
    result === undefined
      ? undefined
      : { ...result, text: cwd === "" ? result.text : result.text.split(cwd).join("<workspace>") };
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
 * A short line diff of two texts: the lines between their common start and common end, at most
 * `limit` of each side, with the line number where they part.
 */
export function shortDiff(expected: string, got: string, limit = 3): string[] {
  const before = expected.split("\n");
  const after = got.split("\n");
  const { prefix: start, suffix: end } = commonLineEnds(before, after);
  const side = (lines: string[], mark: string) => {
    const changed = lines.slice(start, lines.length - end);
    const shown = changed.slice(0, limit).map((line) => `${mark} ${line}`);
    return changed.length > limit ? [...shown, `${mark} … ${changed.length - limit} more line(s)`] : shown;
  };
  return [`@@ line ${start + 1}`, ...side(before, "-"), ...side(after, "+")];
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
