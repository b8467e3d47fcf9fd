import { createFauxModel, type FauxBlock, type FauxResponse } from "@gyre/ai/testing";
import { Type } from "@sinclair/typebox";
import { expect, test } from "vitest";
import { runAgentLoop } from "../src/run-agent-loop.js";
import type { AgentEvent, AgentRunResult, AnyAgentTool } from "../src/types.js";
import { checkInvariants } from "./helpers.js";

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const parameters = Type.Object({ n: Type.Number() }, { additionalProperties: false });
const tools: AnyAgentTool[] = [
  {
    name: "ok",
    label: "ok",
    description: "Returns its input.",
    parameters,
    execute: async (args: { n: number }, { onUpdate }) => {
      onUpdate?.({ content: [{ type: "text", text: "working" }] });
      return { content: [{ type: "text", text: `n=${args.n}` }], details: { n: args.n } };
    },
  },
  {
    name: "fail",
    label: "fail",
    description: "Always throws.",
    parameters,
    execute: async () => {
      throw new Error("this tool always fails");
    },
  },
  {
    name: "slow",
    label: "slow",
    description: "Yields to the event loop before answering; stops on abort.",
    parameters,
    execute: (_args, { signal }) =>
      new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        setImmediate(() => resolve({ content: [{ type: "text", text: "slow done" }] }));
      }),
  },
  {
    name: "seq",
    label: "seq",
    description: "Forces its batch to run in order.",
    parameters,
    executionMode: "sequential",
    execute: async () => ({ content: [{ type: "text", text: "in order" }] }),
  },
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function createBlock(random: () => number): FauxBlock {
  const kind = pick(random, ["text", "call", "call", "unknown", "badArgs", "badJson"] as const);
  switch (kind) {
    case "text":
      return { type: "text", text: "some words ".repeat(1 + Math.floor(random() * 3)) };
    case "call":
      return {
        type: "toolCall",
        name: pick(random, ["ok", "fail", "slow", "seq"]),
        arguments: { n: random() < 0.8 ? 1 : "2" },
      };
    case "unknown":
      return { type: "toolCall", name: "missing", arguments: { n: 1 } };
    case "badArgs":
      return { type: "toolCall", name: "ok", arguments: { m: "x" } };
    case "badJson":
      return { type: "toolCall", name: "ok", arguments: '{"n": 1,' };
    default: {
      const never: never = kind;
      throw new Error(String(never));
    }
  }
}

function createResponse(random: () => number): FauxResponse {
  const content = Array.from({ length: Math.floor(random() * 4) }, () => createBlock(random));
  const roll = random();
  if (roll < 0.1) return { content, stopReason: "length" };
  if (roll < 0.17) return { content, error: "the provider fell over" };
  return { content };
}

async function runOnce(seed: number): Promise<{ events: AgentEvent[]; result: AgentRunResult }> {
  const random = createRandom(seed);
  const script = Array.from({ length: 1 + Math.floor(random() * 4) }, () => createResponse(random));
  script.push({ content: [{ type: "text", text: "the end" }] });
  const faux = createFauxModel(script);
  const controller = new AbortController();
  // Abort at a random event (or never), and sometimes from a microtask so it lands mid-step.
  const abortAt = random() < 0.4 ? Math.floor(random() * 40) : -1;
  const deferred = random() < 0.5;
  const events: AgentEvent[] = [];
  const generator = runAgentLoop({
    model: faux.model,
    context: { messages: [], tools },
    prompts: [{ role: "user", content: `seed ${seed}`, timestamp: 1 }],
    signal: controller.signal,
    toolExecution: random() < 0.2 ? "sequential" : "parallel",
    budgets: random() < 0.2 ? { maxTurns: 1 + Math.floor(random() * 3) } : {},
  });
  while (true) {
    const next = await generator.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
    if (events.length === abortAt) {
      if (deferred) queueMicrotask(() => controller.abort());
      else controller.abort();
    }
  }
}

test("keeps every invariant over 200 random runs with failures, length stops, errors and aborts", async () => {
  const reasons = new Map<string, number>();
  for (let seed = 1; seed <= 200; seed++) {
    const { events, result } = await runOnce(seed);
    try {
      checkInvariants(events, result);
    } catch (error) {
      throw new Error(`seed ${seed} broke an invariant: ${(error as Error).message}`);
    }
    reasons.set(result.reason, (reasons.get(result.reason) ?? 0) + 1);
  }
  // The generator must actually reach the interesting paths, or this test proves little.
  for (const reason of ["stop", "error", "aborted", "budget"]) expect(reasons.get(reason) ?? 0).toBeGreaterThan(5);
});
