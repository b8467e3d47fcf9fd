/**
 * A fetch-shaped POST over `node:http`/`node:https` with keep-alive connections.
 *
 * Why not the global `fetch`: Node's fetch parses HTTP with llhttp compiled to WebAssembly, which
 * V8 compiles on first use in every process (optimising tier included): tens of MiB of peak
 * memory and tens of ms of CPU per run, for a parser Node also ships natively and `node:http`
 * uses. The result is a standard `Response`, so everything downstream reads the same body stream.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** What `nodeHttpFetch` needs of a request: the subset of `RequestInit` that `postJson` sends. */
export type NodeHttpRequest = {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
};

// One pool per scheme for the process: a turn reuses the previous turn's connection.
// Idle sockets are unref'd by the agent, so they never keep the process alive.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
const bodilessStatuses = new Set([101, 204, 205, 304]);

/**
 * Sends one request and resolves to a `Response` once the status line and headers arrive.
 * Rejects with an `AbortError` (`error.name`) when `signal` fires before that, and with the
 * socket's error (its `message` names the cause, e.g. `connect ECONNREFUSED 127.0.0.1:9`) when
 * the connection fails. After the headers, an abort or a broken connection errors the body stream.
 * Only `http:` and `https:` URLs; a body is not decompressed (no `accept-encoding` is sent).
 */
export function nodeHttpFetch(url: string, init: NodeHttpRequest): Promise<Response> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  if (!secure && target.protocol !== "http:") {
    return Promise.reject(new TypeError(`Only http: and https: URLs can be requested, not ${target.protocol}`));
  }
  const { signal } = init;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const send = secure ? httpsRequest : httpRequest;
    const body =
      init.body === undefined ? undefined : typeof init.body === "string" ? Buffer.from(init.body) : init.body;
    const headers = { ...init.headers, ...(body ? { "content-length": String(body.byteLength) } : {}) };
    const request = send(target, { method: init.method, headers, agent: secure ? agents.https : agents.http });
    let response: IncomingMessage | undefined;
    const onAbort = () => {
      const error = abortError(signal);
      request.destroy(error);
      response?.destroy(error);
      reject(error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const detach = () => signal?.removeEventListener("abort", onAbort);
    request.once("error", (error) => {
      detach();
      reject(error);
    });
    request.once("response", (incoming) => {
      response = incoming;
      incoming.once("close", detach);
      const status = incoming.statusCode ?? 0;
      const stream = bodilessStatuses.has(status) ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
      if (!stream) incoming.resume();
      resolve(
        new Response(stream, { status, statusText: incoming.statusMessage, headers: toHeaders(incoming.headers) }),
      );
    });
    request.end(body);
  });
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** The signal's own reason when it is an Error (fetch's behaviour), else a DOMException-like AbortError. */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const error = new Error("This operation was aborted");
  error.name = "AbortError";
  return error;
}
