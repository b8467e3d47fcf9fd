// A minimal OpenAI chat-completions SSE server that streams one text answer token by token and
// records when each token left, so a reader can time token → stdout. The shared fake server in
// packages/cli/test/helpers streams whole replies and keeps no per-chunk times, hence this one.
import { createServer } from "node:http";
import { now } from "./measure.mjs";

/**
 * Starts the server on 127.0.0.1. `plan` is re-read per request: `{ tokens: string[], intervalMs }`
 * (intervalMs 0 sends every token back to back). Resolves to `{ url, plan, sent, close }` where
 * `sent[i]` is the time (ms since epoch) token i of the latest request was written.
 */
export async function startPacedSseServer() {
  const state = { plan: { tokens: ["ok"], intervalMs: 0 }, sent: [] };
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", async () => {
      const { tokens, intervalMs } = state.plan;
      state.sent = [];
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.write(chunk({ role: "assistant", content: "" }));
      for (const token of tokens) {
        if (response.destroyed) return;
        state.sent.push(now());
        response.write(chunk({ content: token }));
        if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
      }
      response.write(chunk({}, "stop"));
      const usage = { prompt_tokens: 100, completion_tokens: tokens.length, total_tokens: 100 + tokens.length };
      response.write(
        `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", model: "bench", choices: [], usage })}\n\n`,
      );
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    setPlan: (plan) => {
      state.plan = plan;
    },
    sent: () => state.sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
