// A fake model server on 127.0.0.1 that speaks the OpenAI chat-completions and Anthropic messages
// streaming wire protocols, answering from a script. Used by the CLI's end-to-end tests and by bench/.
import { createServer } from "node:http";

/**
 * @param {{ respond: (request: { path: string, body: any, index: number }) => any }} options
 *   `respond` returns { text?, thinking?, toolCalls?: [{ id?, name, arguments }], status?, error?, chunkSize?, delayMs?, usage? }
 */
export async function startFakeModelServer(options) {
  const requests = [];
  const sockets = new Set();
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const arrivedAt = performance.timeOrigin + performance.now();
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      const index = requests.length;
      requests.push({ path: request.url, headers: request.headers, body, arrivedAt });
      const reply = await options.respond({ path: request.url ?? "", body, index });
      if (reply.status && reply.status !== 200) {
        response.writeHead(reply.status, { "content-type": "application/json", ...(reply.headers ?? {}) });
        response.end(JSON.stringify({ error: { type: "error", message: reply.error ?? "failure" } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const events = (request.url ?? "").includes("/messages") ? anthropicEvents(reply) : openaiEvents(reply, body);
      for (const event of events) {
        if (response.destroyed) return;
        response.write(event);
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      }
      if (!reply.hang) response.end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function pieces(text, size) {
  const out = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

function openaiEvents(reply, body) {
  const id = "chatcmpl-fake";
  const model = body?.model ?? "fake";
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = [chunk({ role: "assistant", content: "" })];
  if (reply.reasoning) events.push(chunk({ reasoning_content: reply.reasoning }));
  for (const piece of pieces(reply.text ?? "", reply.chunkSize ?? 8)) events.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of pieces(args, reply.argumentChunkSize ?? 16))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (reply.midStreamError) {
    events.push(`data: ${JSON.stringify({ error: { message: reply.midStreamError } })}\n\n`);
    return events;
  }
  const finish = reply.finishReason ?? ((reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop");
  events.push(chunk({}, finish));
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
  events.push(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [], usage })}\n\n`);
  events.push("data: [DONE]\n\n");
  return events;
}

function anthropicEvents(reply) {
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = reply.usage ?? { input_tokens: 100, output_tokens: 20 };
  const events = [
    event("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "fake",
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (reply.text) {
    events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of pieces(reply.text, reply.chunkSize ?? 8))
      events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    events.push(event("content_block_stop", { index }));
    index++;
  }
  for (const call of reply.toolCalls ?? []) {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    events.push(
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: call.id ?? `toolu_${index}`, name: call.name, input: {} },
      }),
    );
    for (const piece of pieces(args, reply.argumentChunkSize ?? 16))
      events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    events.push(event("content_block_stop", { index }));
    index++;
  }
  if (reply.midStreamError) {
    events.push(event("error", { error: { type: "overloaded_error", message: reply.midStreamError } }));
    return events;
  }
  const stop = reply.finishReason ?? ((reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn");
  events.push(
    event("message_delta", {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}
