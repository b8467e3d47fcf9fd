import type { AgentTool } from "@gyre/agent";
import type { Model } from "@gyre/ai";
import { Type } from "@sinclair/typebox";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession, type SessionEvent } from "../../src/core/agent-session.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { tempDir } from "../session/helpers.js";

const WINDOW = 40_000;
let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Tokens of a request as the server counts them: four characters per token, like gyre's estimate. */
function requestTokens(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

/**
 * A 127.0.0.1 server with a 40k-token window: a request over it gets the provider's
 * context_length_exceeded 400; summary requests get a short summary; others `answer`.
 */
async function windowServer(answer: (index: number) => FakeReply) {
  const sizes: number[] = [];
  let overflows = 0;
  const started = await startFakeModelServer({
    respond: ({ body, index }) => {
      const tokens = requestTokens(body);
      sizes.push(tokens);
      if (tokens > WINDOW) {
        overflows++;
        return {
          status: 400,
          error: `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens.`,
        };
      }
      const usage = { prompt_tokens: tokens, completion_tokens: 50, total_tokens: tokens + 50 };
      if (JSON.stringify(body.messages?.[0]).includes("hand-over summary"))
        return { text: "## Goal\nKeep working through the steps.", usage };
      return { ...answer(index), usage };
    },
  });
  server = started;
  return { started, sizes, overflows: () => overflows };
}

function windowModel(url: string): Model {
  return {
    id: "window-40k",
    name: "window-40k",
    api: "openai-completions",
    provider: "openai",
    baseUrl: `${url}/v1`,
    reasoning: false,
    input: ["text"],
    contextWindow: WINDOW,
    maxTokens: 4_096,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

const stepTool: AgentTool<ReturnType<typeof Type.Object>> = {
  name: "step",
  label: "Step",
  description: "Runs one step and returns its log.",
  parameters: Type.Object({ n: Type.Number() }),
  execute: async (args) => ({
    content: [{ type: "text", text: `step ${String((args as { n: number }).n)} log: ${"z".repeat(1_600)}` }],
    details: undefined,
  }),
};

async function createSession(model: Model, tools: AgentTool<ReturnType<typeof Type.Object>>[] = []) {
  const store = SessionManager.create({ sessionsDir: await tempDir(), cwd: "/work" });
  const session = new AgentSession({
    model,
    apiKey: "sk-test",
    systemPrompt: "You are a test.",
    thinkingLevel: "off",
    tools,
    messages: [],
    store,
    compaction: { reserveTokens: 8_000, keepRecentTokens: 20_000 },
  });
  const events: SessionEvent[] = [];
  session.subscribe((event) => events.push(event));
  return { session, store, events };
}

describe("long sessions on a 40k-token window", () => {
  it("answers 200 prompts of 1.5 KB with no context overflow", async () => {
    const { started, sizes, overflows } = await windowServer(() => ({ text: `Noted. ${"n".repeat(1_500)}` }));
    const { session } = await createSession(windowModel(started.url));
    for (let index = 0; index < 200; index++) {
      const result = await session.prompt(`Prompt ${index}: ${"p".repeat(1_500)}`);
      expect(result.reason).toBe("stop");
    }
    expect(overflows()).toBe(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    await session.dispose();
  }, 120_000);

  it("runs one prompt through 300 tool turns with no context overflow, compacting between turns", async () => {
    const { started, sizes, overflows } = await windowServer((index) =>
      index >= 400 ? { text: "all done" } : { toolCalls: [{ name: "step", arguments: { n: index } }] },
    );
    let turns = 0;
    const { session, events } = await createSession(windowModel(started.url), [
      {
        ...stepTool,
        execute: async (args, context) => {
          turns++;
          return stepTool.execute(args, context);
        },
      },
    ]);
    // The server stops asking for tools after 300 step results (its request count includes summaries).
    const result = await session.prompt("Run the steps until told to stop.");
    expect(result.reason).toBe("stop");
    expect(turns).toBeGreaterThanOrEqual(300);
    expect(overflows()).toBe(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    expect(events.some((event) => event.type === "compaction_end" && event.error === undefined)).toBe(true);
    await session.dispose();
  }, 180_000);
});
