/**
 * Context-overflow recognition in the wordings of more servers (issue 13): each error comes back
 * from a real local HTTP server the way that server sends it, and the resulting message must be
 * recognised by `isContextOverflow`, so the session compacts instead of failing.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { isContextOverflow } from "../src/index.js";
import { type LocalServer, startLocalServer, writeChunks } from "./helpers/local-server.js";
import { run } from "./helpers/run.js";
import { createTestModel } from "./helpers/test-model.js";

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server that answers every request with `status` and `body` (JSON unless a string). */
async function answering(status: number, body: unknown): Promise<LocalServer> {
  const server = await startLocalServer((_request, response) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    response.writeHead(status, text ? { "content-type": "application/json" } : {});
    response.end(text);
  });
  servers.push(server);
  return server;
}

const model = (server: LocalServer) =>
  createTestModel("openai-completions", `${server.url}/v1`, { provider: "testprovider" });

const wordings: [string, unknown][] = [
  [
    "GitHub Copilot",
    {
      error: {
        message: "prompt token count of 135211 exceeds the limit of 128000",
        code: "model_max_prompt_tokens_exceeded",
      },
    },
  ],
  [
    "xAI",
    {
      code: "Client specified an invalid argument",
      error: "This model's maximum prompt length is 131072 but the request contains 140511 tokens.",
    },
  ],
  [
    "MiniMax",
    { base_resp: { status_code: 2013 }, error: { message: "invalid params, context window exceeds limit (2013)" } },
  ],
  [
    "Kimi",
    {
      error: {
        message: "Your request exceeded model token limit: 262144 (requested: 270001)",
        type: "invalid_request_error",
      },
    },
  ],
];

describe("context overflow recognition", () => {
  it.each(wordings)("recognises %s's overflow error", async (_server, body) => {
    const server = await answering(400, body);
    const { message } = await run(model(server), { retry: { maxRetries: 0 } });
    expect(message.stopReason).toBe("error");
    expect(isContextOverflow(message)).toBe(true);
  });

  it("recognises a 400 without a body (Cerebras-style) as an overflow and says there was no body", async () => {
    const server = await answering(400, "");
    const { message } = await run(model(server), { retry: { maxRetries: 0 } });
    expect(message.errorMessage).toContain("no body");
    expect(isContextOverflow(message)).toBe(true);
  });

  it("does not take a 400 with a body that names another problem for an overflow", async () => {
    const server = await answering(400, { error: { message: "Invalid value for 'temperature'" } });
    const { message } = await run(model(server), { retry: { maxRetries: 0 } });
    expect(isContextOverflow(message)).toBe(false);
  });

  it("ends a stream whose finish reason is model_context_window_exceeded (z.ai) as an overflow error", async () => {
    const fixture = readFileSync(
      new URL("./wire-quirks/openai-completions/finish-reason-model-context-window-exceeded.sse", import.meta.url),
    );
    const server = await startLocalServer(async (_request, response) => {
      await writeChunks(response, [fixture], "text/event-stream");
    });
    servers.push(server);
    const { message } = await run(model(server));
    expect(message.stopReason).toBe("error");
    expect(message.rawStopReason).toBe("model_context_window_exceeded");
    expect(message.errorMessage).toBe(
      'The prompt is longer than the model\'s context window (finish_reason "model_context_window_exceeded").',
    );
    expect(isContextOverflow(message)).toBe(true);
  });
});
