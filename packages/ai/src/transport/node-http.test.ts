import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "./node-http.js";

let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real server on 127.0.0.1 that records each request's socket (to see keep-alive reuse). */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; ports: number[] }> {
  const ports: number[] = [];
  server = createServer((request, response) => {
    ports.push(request.socket.remotePort ?? 0);
    handler?.(request, response);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, ports };
}

const post = { method: "POST", headers: { "content-type": "application/json" } };

describe("nodeHttpFetch", () => {
  it("sends the body and returns status, headers and the streamed body as a Response", async () => {
    const { url } = await serve((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        response.writeHead(201, { "content-type": "text/event-stream", "x-multi": ["a", "b"] });
        response.write("data: 1\n\n");
        response.end(`echo: ${Buffer.concat(chunks).toString()} ${request.headers["content-length"]}`);
      });
    });
    const response = await nodeHttpFetch(url, { ...post, body: '{"é":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-multi")).toBe("a, b");
    expect(await response.text()).toBe('data: 1\n\necho: {"é":1} 8');
  });

  it("reuses one connection for consecutive requests", async () => {
    const { url, ports } = await serve((_request, response) => response.end("ok"));
    for (let turn = 0; turn < 3; turn++)
      expect(await (await nodeHttpFetch(url, { ...post, body: "{}" })).text()).toBe("ok");
    expect(new Set(ports).size).toBe(1);
  });

  it("rejects with an AbortError when the signal fires before the headers", async () => {
    const { url } = await serve(() => {});
    const controller = new AbortController();
    const pending = nodeHttpFetch(url, { ...post, body: "{}", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await expect(nodeHttpFetch(url, { ...post, signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("errors the body stream when the signal fires mid-body", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200);
      response.write("first");
    });
    const controller = new AbortController();
    const response = await nodeHttpFetch(url, { ...post, signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first");
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects naming the cause when nothing listens", async () => {
    const { url } = await serve(() => {});
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    await expect(nodeHttpFetch(url, { ...post, body: "{}" })).rejects.toThrow(/ECONNREFUSED 127\.0\.0\.1/);
  });

  it("refuses a URL that is not http or https", async () => {
    await expect(nodeHttpFetch("file:///etc/passwd", post)).rejects.toThrow(/Only http: and https: URLs/);
  });
});
