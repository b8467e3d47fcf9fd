import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, toolContext } from "../../../test/tools/helpers.js";
import { createWebFetchTool, isHostAllowed } from "./web-fetch-tool.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    if (path === "/page") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        "<!doctype html><html><head><title>T</title><script>steal()</script></head><body><h1>Title</h1>" +
          '<p>Some <a href="/next">link</a> text.</p><pre><code>const a = 1;</code></pre></body></html>',
      );
    } else if (path === "/plain") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(Array.from({ length: 30 }, (_, n) => `line ${n + 1}`).join("\n"));
    } else if (path.startsWith("/hop/")) {
      const left = Number(path.slice(5));
      response.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : "/plain" });
      response.end();
    } else if (path === "/image") {
      response.writeHead(200, { "content-type": "image/png" });
      response.end(Buffer.alloc(100));
    } else if (path === "/big") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("x".repeat(20_000));
    } else if (path === "/silent") {
      response.flushHeaders();
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("nope");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("web_fetch tool", () => {
  it("turns an HTML page into Markdown without its scripts", async () => {
    const result = await createWebFetchTool().execute({ url: `${base}/page` }, toolContext());
    const text = textOf(result);
    expect(text).toContain("# Title");
    expect(text).toContain("[link](/next)");
    expect(text).toContain("```\nconst a = 1;\n```");
    expect(text).not.toContain("steal");
    expect(result.details).toMatchObject({ status: 200, truncated: false, finalUrl: `${base}/page` });
  });

  it("pages long text with the read tool's continuation notice", async () => {
    const tool = createWebFetchTool({ maxLines: 10 });
    const first = await tool.execute({ url: `${base}/plain` }, toolContext());
    expect(textOf(first)).toMatch(
      /^line 1\n[\s\S]*line 10\n\n\[Lines 1-10 of 30 shown\. Use offset=11 to continue\.\]$/,
    );
    const second = await tool.execute({ url: `${base}/plain`, offset: 11 }, toolContext());
    expect(textOf(second).startsWith("line 11\n")).toBe(true);
  });

  it("follows a bounded number of redirects", async () => {
    const result = await createWebFetchTool().execute({ url: `${base}/hop/3` }, toolContext());
    expect(result.details?.finalUrl).toBe(`${base}/plain`);
    await expect(
      createWebFetchTool({ maxRedirects: 2 }).execute({ url: `${base}/hop/3` }, toolContext()),
    ).rejects.toThrow(/Too many redirects/);
  });

  it("refuses binary content, error statuses, other schemes and credentials with a sentence", async () => {
    const tool = createWebFetchTool();
    await expect(tool.execute({ url: `${base}/image` }, toolContext())).rejects.toThrow(/is image\/png, not text/);
    await expect(tool.execute({ url: `${base}/missing` }, toolContext())).rejects.toThrow(/answered HTTP 404/);
    await expect(tool.execute({ url: "file:///etc/passwd" }, toolContext())).rejects.toThrow(/Only http and https/);
    await expect(tool.execute({ url: `http://u:p@127.0.0.1:1/` }, toolContext())).rejects.toThrow(/credentials/);
    await expect(tool.execute({ url: "not a url" }, toolContext())).rejects.toThrow(/is not a URL/);
  });

  it("reads at most maxResponseBytes of a large body and says so", async () => {
    const result = await createWebFetchTool({ maxResponseBytes: 1000 }).execute({ url: `${base}/big` }, toolContext());
    expect(textOf(result)).toMatch(/^x{1000}\n\n\[The page is larger than 1000 B; only its start was read\.\]$/);
    expect(result.details?.truncated).toBe(true);
  });

  it("times out a server that never sends a body, and stops on abort", async () => {
    await expect(
      createWebFetchTool({ timeoutMs: 300 }).execute({ url: `${base}/silent` }, toolContext()),
    ).rejects.toThrow(/timed out after 0.3 s/);
    const controller = new AbortController();
    const pending = createWebFetchTool().execute({ url: `${base}/silent` }, toolContext(controller.signal));
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
  });

  it("with the network off, reaches only the allowed domains, redirects included", async () => {
    const closed = createWebFetchTool({ networkAllowed: false });
    await expect(closed.execute({ url: `${base}/plain` }, toolContext())).rejects.toThrow(
      /network is off.*127\.0\.0\.1/,
    );
    const allowed = createWebFetchTool({ networkAllowed: false, allowedDomains: ["127.0.0.1"] });
    expect((await allowed.execute({ url: `${base}/hop/1` }, toolContext())).details?.status).toBe(200);
  });

  it("matches allowed hosts exactly, or as subdomains of a wildcard entry", () => {
    expect(isHostAllowed("registry.npmjs.org", ["registry.npmjs.org"])).toBe(true);
    expect(isHostAllowed("REGISTRY.npmjs.org.", ["registry.npmjs.org"])).toBe(true);
    expect(isHostAllowed("evil.com.registry.npmjs.org", ["registry.npmjs.org"])).toBe(false);
    expect(isHostAllowed("registry.npmjs.org.evil.com", ["registry.npmjs.org"])).toBe(false);
    expect(isHostAllowed("api.github.com", ["*.github.com"])).toBe(true);
    expect(isHostAllowed("github.com", ["*.github.com"])).toBe(false);
    expect(isHostAllowed("evilgithub.com", ["*.github.com"])).toBe(false);
  });
});
