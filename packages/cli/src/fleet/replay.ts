/**
 * `gyre replay`'s core: turns a recorded session's first request into a faux script (the model's
 * outputs, verbatim: texts, thinking, tool calls with their ids) plus the tool results it got,
 * and compares those with the results the current build's tools give when the script is replayed.
 * Paths of the recorded and the replay workspace are written `<workspace>` before comparing.
 */
import type { AgentMessage } from "@gyre/agent";
import type { FauxBlock, FauxResponse } from "@gyre/ai/testing";

export type RecordedRequest = {
  prompt: string;
  script: FauxResponse[];
  results: RecordedResult[];
  /** User messages after the first request that the replay does not cover. */
  laterRequests: number;
};

export type RecordedResult = { toolCallId: string; toolName: string; isError: boolean; text: string };

export type ReplayDifference = {
  index: number;
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

/** The first request of a branch (its messages in order); throws when it has no user message. */
export function recordedRequest(messages: readonly AgentMessage[]): RecordedRequest {
  const start = messages.findIndex((message) => message.role === "user");
  if (start === -1) throw new Error("The session holds no user message: there is nothing to replay.");
  const script: FauxResponse[] = [];
  const results: RecordedResult[] = [];
  let laterRequests = 0;
  for (const message of messages.slice(start + 1)) {
    if (message.role === "user") laterRequests++;
    if (laterRequests > 0) continue;
    if (message.role === "assistant") {
      // An aborted or failed response was cut by the harness or the network, not said by the model.
      if (message.stopReason === "aborted" || message.stopReason === "error") continue;
      // A provider's server-side tool blocks (web search) ran at the provider: nothing to replay.
      const content = message.content.flatMap((block): FauxBlock[] => {
        if (block.type === "toolCall")
          return [
            { type: "toolCall", id: block.id, name: block.name, arguments: block.rawArguments ?? block.arguments },
          ];
        if (block.type === "thinking") return [{ type: "thinking", thinking: block.thinking }];
        if (block.type === "text") return [{ type: "text", text: block.text }];
        return [];
      });
      script.push({ content, ...(message.stopReason === "length" ? { stopReason: "length" } : {}) });
    }
    if (message.role === "toolResult")
      results.push({
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        isError: message.isError,
        text: textOf(message.content),
      });
  }
  const first = messages[start] as Extract<AgentMessage, { role: "user" }>;
  return { prompt: textOf(first.content), script, results, laterRequests };
}

/** The tool results of a replayed session, in order. */
export function replayedResults(messages: readonly AgentMessage[]): RecordedResult[] {
  return messages.flatMap((message) =>
    message.role === "toolResult"
      ? [
          {
            toolCallId: message.toolCallId,
            toolName: message.toolName,
            isError: message.isError,
            text: textOf(message.content),
          },
        ]
      : [],
  );
}

/** Pairs recorded and replayed results by position; every pair that differs (or is missing) is listed. */
export function compareResults(
  recorded: readonly RecordedResult[],
  replayed: readonly RecordedResult[],
  workspaces: { recorded: string; replayed: string },
  calls: ReadonlyMap<string, { name: string; arguments: string }>,
): ReplayDifference[] {
  const normalise = (result: RecordedResult | undefined, cwd: string) =>
    result === undefined
      ? undefined
      : { ...result, text: cwd === "" ? result.text : result.text.split(cwd).join("<workspace>") };
  const differences: ReplayDifference[] = [];
  for (let index = 0; index < Math.max(recorded.length, replayed.length); index++) {
    const before = normalise(recorded[index], workspaces.recorded);
    const after = normalise(replayed[index], workspaces.replayed);
    const same =
      before !== undefined &&
      after !== undefined &&
      before.toolName === after.toolName &&
      before.isError === after.isError &&
      before.text === after.text;
    if (same) continue;
    const call = calls.get((before ?? after)?.toolCallId ?? "");
    differences.push({
      index: index + 1,
      toolName: (before ?? after)?.toolName ?? "?",
      arguments: call?.arguments ?? "",
      ...(before ? { recorded: before } : {}),
      ...(after ? { replayed: after } : {}),
    });
  }
  return differences;
}

/** The tool calls of a faux script by id (name and arguments as JSON), for the report. */
export function callsOf(script: readonly FauxResponse[]): Map<string, { name: string; arguments: string }> {
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

/** The differences as readable lines (recorded text first, then the replay's). */
export function renderDifferences(differences: readonly ReplayDifference[]): string {
  const clip = (text: string) => (text.length > 800 ? `${text.slice(0, 800)}… (${text.length} characters)` : text);
  const show = (result: RecordedResult | undefined) =>
    result === undefined ? "(no result)" : `${result.isError ? "[error] " : ""}${clip(result.text)}`;
  return differences
    .map(
      (difference) =>
        `tool result ${difference.index} (${difference.toolName} ${clip(difference.arguments)}) differs:\n` +
        `  recorded: ${show(difference.recorded).replace(/\n/g, "\n            ")}\n` +
        `  now:      ${show(difference.replayed).replace(/\n/g, "\n            ")}\n`,
    )
    .join("");
}
