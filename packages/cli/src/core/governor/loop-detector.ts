/**
 * The convergence check of the governor (docs/design/delegation.md): watches each completed turn for the patterns
 * of a run that has stopped making progress, and says first "warn" (the session tells the model
 * which pattern it is in) and, if the same pattern goes on after that, "stop" (the run ends with
 * reason `loop`).
 *
 * Patterns, each over the sequence of tool calls across turns:
 * - `repeated_call`: the same call (tool + arguments) returned the same result several times in a row;
 * - `repeated_failure`: the same call failed several times in a row (error texts may differ);
 * - `alternating_calls`: two calls A and B alternate (A B A B A B) with unchanged results;
 * - `repeated_text`: the model's answer text repeats, across turns or within one answer.
 *
 * Legitimate polling (`sleep 5 && curl …/status`, the same call whose result changes) and the
 * edit → `npm test` rhythm (edits differ, test output changes) never match: a repeat needs both the
 * same call and the same outcome, and a bash command that waits (`sleep`, `wait`, `watch`, `timeout`) counts as polling
 * with a much higher bar. Cost: one short hash per tool call and per answer; state is bounded.
 */
import { createHash } from "node:crypto";
import type { AssistantMessage, ToolResultMessage } from "@gyre/ai";
import { answerText } from "../answer-text.js";

export type LoopPattern = "repeated_call" | "repeated_failure" | "alternating_calls" | "repeated_text";

/** What the detector says about a turn. */
export type LoopVerdict =
  | { action: "continue" }
  | { action: "warn" | "stop"; pattern: LoopPattern; message: string; toolName?: string };

export type LoopDetectorOptions = {
  /** Identical call + identical result this many times in a row → warn. Default 4. */
  repeatedCalls?: number;
  /** The same call failing this many times in a row → warn. Default 3. */
  repeatedFailures?: number;
  /** A B pairs in a row → warn. Default 3 (A B A B A B). */
  alternatingPairs?: number;
  /** The same answer text this many turns → warn; a line repeated this many times × 3 in one answer. Default 3. */
  repeatedTexts?: number;
  /** Repeats of a polling bash command (one that sleeps or waits) before it counts. Default 30. */
  pollingCalls?: number;
  /** After a warning, this many further repeats of the pattern stop the run. Default 2. */
  graceAfterWarning?: number;
};

type CallRecord = { call: string; outcome: string; failed: boolean; toolName: string; polling: boolean };

const HISTORY = 64;
const POLLING = /\b(sleep|wait|watch|timeout|until|inotifywait)\b/;

/** The loop detector's state for one run (or one agent of a tree). Feed it every completed turn. */
export type LoopDetector = {
  /** Judges a completed turn. */
  observeTurn(message: AssistantMessage, toolResults: readonly ToolResultMessage[]): LoopVerdict;
  /** Forgets everything (a new user prompt is a new task). */
  reset(): void;
};

/** Creates a loop detector with the given thresholds. */
export function createLoopDetector(options: LoopDetectorOptions = {}): LoopDetector {
  const limits = {
    repeatedCalls: options.repeatedCalls ?? 4,
    repeatedFailures: options.repeatedFailures ?? 3,
    alternatingPairs: options.alternatingPairs ?? 3,
    repeatedTexts: options.repeatedTexts ?? 3,
    pollingCalls: options.pollingCalls ?? 30,
    grace: options.graceAfterWarning ?? 2,
  };
  let calls: CallRecord[] = [];
  let texts: string[] = [];
  let warned: { pattern: LoopPattern; atRepeat: number } | undefined;

  const judge = (found: Detection | undefined): LoopVerdict => {
    if (found === undefined) {
      warned = undefined;
      return { action: "continue" };
    }
    if (warned === undefined || warned.pattern !== found.pattern) {
      warned = { pattern: found.pattern, atRepeat: found.repeats };
      return { action: "warn", ...describe(found) };
    }
    if (found.repeats >= warned.atRepeat + limits.grace) return { action: "stop", ...describe(found) };
    return { action: "continue" };
  };

  return {
    observeTurn(message, toolResults) {
      const resultById = new Map(toolResults.map((result) => [result.toolCallId, result]));
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        calls.push(recordCall(block.name, block.arguments, resultById.get(block.id)));
      }
      if (calls.length > HISTORY) calls = calls.slice(-HISTORY);
      const text = answerText(message);
      if (text !== "") texts = [...texts.slice(-(HISTORY - 1)), digest(normaliseText(text))];
      return judge(
        detectRepeatedCall(calls, limits) ??
          detectAlternation(calls, limits.alternatingPairs) ??
          detectRepeatedText(texts, text, limits.repeatedTexts),
      );
    },
    reset() {
      calls = [];
      texts = [];
      warned = undefined;
    },
  };
}

type Detection = { pattern: LoopPattern; repeats: number; toolName?: string };

function recordCall(name: string, args: Record<string, unknown>, result: ToolResultMessage | undefined): CallRecord {
  const command = name === "bash" && typeof args.command === "string" ? args.command : "";
  const outcome =
    result === undefined ? "" : result.content.map((part) => (part.type === "text" ? part.text : part.data)).join("\n");
  return {
    call: digest(`${name}\u0000${stableJson(args)}`),
    outcome: digest(outcome),
    failed: result?.isError === true,
    toolName: name,
    polling: POLLING.test(command),
  };
}

function detectRepeatedCall(
  calls: readonly CallRecord[],
  limits: { repeatedCalls: number; repeatedFailures: number; pollingCalls: number },
): Detection | undefined {
  const last = calls.at(-1);
  if (last === undefined) return undefined;
  let sameCall = 0;
  let sameOutcome = 0;
  let failures = 0;
  for (let index = calls.length - 1; index >= 0; index--) {
    const record = calls[index] as CallRecord;
    if (record.call !== last.call) break;
    sameCall++;
    if (record.outcome === last.outcome && sameOutcome === sameCall - 1) sameOutcome++;
    if (record.failed && failures === sameCall - 1) failures++;
  }
  const callLimit = last.polling ? limits.pollingCalls : limits.repeatedCalls;
  if (last.failed && failures >= limits.repeatedFailures && !last.polling) {
    return { pattern: "repeated_failure", repeats: failures, toolName: last.toolName };
  }
  if (sameOutcome >= callLimit) return { pattern: "repeated_call", repeats: sameOutcome, toolName: last.toolName };
  return undefined;
}

function detectAlternation(calls: readonly CallRecord[], pairs: number): Detection | undefined {
  const a = calls.at(-2);
  const b = calls.at(-1);
  if (a === undefined || b === undefined || a.call === b.call || a.polling || b.polling) return undefined;
  let count = 0;
  for (let index = calls.length - 1; index >= 1; index -= 2) {
    const second = calls[index] as CallRecord;
    const first = calls[index - 1] as CallRecord;
    const same = (record: CallRecord, model: CallRecord) =>
      record.call === model.call && record.outcome === model.outcome;
    if (!same(second, b) || !same(first, a)) break;
    count++;
  }
  return count >= pairs ? { pattern: "alternating_calls", repeats: count, toolName: b.toolName } : undefined;
}

function detectRepeatedText(texts: readonly string[], text: string, limit: number): Detection | undefined {
  const last = texts.at(-1);
  if (text !== "" && last !== undefined) {
    let repeats = 0;
    for (let index = texts.length - 1; index >= 0 && texts[index] === last; index--) repeats++;
    if (repeats >= limit) return { pattern: "repeated_text", repeats };
  }
  const lines = text
    .split(/\n|(?<=[.!?])\s+/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 16);
  if (lines.length < limit * 3) return undefined;
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  const most = Math.max(...counts.values());
  return most >= limit * 3 && most * 2 >= lines.length ? { pattern: "repeated_text", repeats: most } : undefined;
}

function describe(found: Detection): { pattern: LoopPattern; message: string; toolName?: string } {
  const tool = found.toolName === undefined ? "" : ` ${found.toolName}`;
  const message = {
    repeated_call: `You called${tool} with the same arguments ${found.repeats} times in a row and got the same result each time. Repeating it will not change the outcome: use the result you have, try a different approach, or stop and say what blocks you.`,
    repeated_failure: `The same${tool} call failed ${found.repeats} times in a row. Read the error, change the arguments or the approach, or stop and say what blocks you.`,
    alternating_calls: `You are alternating between the same two tool calls (${found.repeats} rounds) with unchanged results. Step back: decide from what you have, or try something different.`,
    repeated_text: "Your answer repeats the same text. Finish the answer without repeating yourself, or stop.",
  }[found.pattern];
  return { pattern: found.pattern, message, ...(found.toolName === undefined ? {} : { toolName: found.toolName }) };
}

function normaliseText(text: string): string {
  return text.replace(/\s+/g, " ").toLowerCase();
}

function digest(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
