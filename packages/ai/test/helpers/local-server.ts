import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** Folder of the recorded provider streams vendored into this package (read-only; sources and licences in its README). */
export const fixturesDir = new URL("../fixtures/providers/", import.meta.url).pathname;

export type RecordedRequest = { method: string; url: string; headers: IncomingMessage["headers"]; body: unknown };

export type LocalServer = {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

/**
 * Starts a real HTTP server on 127.0.0.1 with a random port. `handler` gets the parsed JSON body
 * (or the raw text) and writes the response itself.
 */
export async function startLocalServer(
  handler: (request: RecordedRequest, response: ServerResponse, index: number) => void | Promise<void>,
): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep raw text
      }
      const recorded = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, response, requests.length - 1)).catch((error: unknown) => {
        response.destroy(error as Error);
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type WireApi = "openai-completions" | "openai-responses" | "anthropic-messages" | "google-gemini";

/**
 * The bytes a recorded fixture puts on the wire. `.sse` and `.json` files are served byte-exact;
 * `.jsonl` files (one SSE data payload per line) are framed per the fixtures README.
 */
export function loadFixtureBody(relativePath: string, api: WireApi): Buffer {
  const raw = readFileSync(join(fixturesDir, relativePath));
  if (!relativePath.endsWith(".jsonl")) return raw;
  const lines = raw
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  let out = "";
  for (const line of lines) {
    if (api === "anthropic-messages" || api === "openai-responses") {
      const type = (JSON.parse(line) as { type?: string }).type;
      if (type) out += `event: ${type}\n`;
    }
    out += `data: ${line}\n\n`;
  }
  if (api === "openai-completions") out += "data: [DONE]\n\n";
  return Buffer.from(out, "utf8");
}

/** Splits `body` into chunks: whole, 1-byte, or random sizes from a seeded generator. */
export function splitBody(body: Buffer, mode: "whole" | "bytes" | { seed: number }): Buffer[] {
  if (mode === "whole") return [body];
  if (mode === "bytes") return [...body].map((byte) => Buffer.from([byte]));
  let state = mode.seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const size = 1 + Math.floor(random() * 64);
    chunks.push(body.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** Writes `chunks` as a streaming 200 response, yielding to the event loop between chunks. */
export async function writeChunks(response: ServerResponse, chunks: Buffer[], contentType: string): Promise<void> {
  response.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  for (const chunk of chunks) {
    response.write(chunk);
    if (chunks.length > 1) await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}
