/**
 * A fetch-shaped POST over `node:http`/`node:https` with keep-alive connections.
 *
 * Why not the global `fetch`: Node's fetch parses HTTP with llhttp compiled to WebAssembly, which
 * V8 compiles on first use in every process (optimising tier included): tens of MiB of peak
 * memory and tens of ms of CPU per run, for a parser Node also ships natively and `node:http`
 * uses. The result is a standard `Response`, so everything downstream reads the same body stream.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/**
 * A request body: text (sent as UTF-8), bytes, or bytes in parts that are written in order and
 * never joined, so a long history's cached pieces go to the socket without a body-sized copy.
 */
export type RequestBody = string | Uint8Array | readonly Uint8Array[];

/** What `nodeHttpFetch` needs of a request: the subset of `RequestInit` that `postJson` sends. */
export type NodeHttpRequest = {
  method: string;
  headers: Record<string, string>;
  body?: RequestBody;
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
    const body = bodyParts(init.body);
    const length = body?.reduce((total, part) => total + part.byteLength, 0);
    const headers = { ...init.headers, ...(length !== undefined ? { "content-length": String(length) } : {}) };
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
    writeBody(request, body ?? []).catch((error: Error) => request.destroy(error));
  });
}

/** Bytes copied into one write; the buffer is reused once the socket has taken it. */
const WRITE_CHUNK = 64 * 1024;

/**
 * Writes `parts` and ends the request. Parts are copied into one reused buffer of `WRITE_CHUNK`
 * bytes rather than written one by one (thousands of small writes per request cost more than
 * the copy) or joined (a body-sized buffer per call, left for the collector, was most of the
 * memory a long session grew by).
 */
async function writeBody(request: ClientRequest, parts: readonly Uint8Array[]): Promise<void> {
  if (parts.length <= 1) {
    request.end(parts[0]);
    return;
  }
  const closed = new Promise<void>((resolve) => request.once("close", resolve));
  const chunk = Buffer.allocUnsafe(WRITE_CHUNK);
  let filled = 0;
  // Index loops: across an await, for-of allocates an iterator result per part.
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Uint8Array;
    for (let offset = 0; offset < part.byteLength; ) {
      const count = Math.min(part.byteLength - offset, WRITE_CHUNK - filled);
      chunk.set(count === part.byteLength ? part : part.subarray(offset, offset + count), filled);
      filled += count;
      offset += count;
      if (filled < WRITE_CHUNK) continue;
      await Promise.race([new Promise((resolve) => request.write(chunk, resolve)), closed]);
      if (request.destroyed) return;
      filled = 0;
    }
  }
  request.end(chunk.subarray(0, filled));
}

function bodyParts(body: RequestBody | undefined): readonly Uint8Array[] | undefined {
  if (body === undefined) return undefined;
  if (typeof body === "string") return [Buffer.from(body)];
  return body instanceof Uint8Array ? [body] : body;
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
