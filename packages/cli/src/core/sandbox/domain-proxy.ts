/**
 * The filtering proxy behind `sandbox.allowedDomains`: an HTTP proxy (absolute-form requests for
 * `http://`, CONNECT for everything else) listening on a Unix socket in a private directory that
 * is bind-mounted into the sandbox. The sandbox keeps its own empty network namespace; the
 * supervisor inside bridges 127.0.0.1:<port> to this socket, so the only way out is through here,
 * and only to hosts the allowlist names. Runs in gyre's process, which has the host's network.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { createHostAllowlist, type HostAllowlist, parseAuthority } from "./host-allowlist.js";

/** One refused request, for the bash tool's explanation of a failed command. */
export type ProxyRefusal = { seq: number; target: string; reason: string };

export type DomainProxy = {
  /** The directory holding `proxy.sock` (mounted into the sandbox). */
  dir: string;
  socketPath: string;
  allowlist: HostAllowlist;
  /** How many refusals so far; pass it to `refusalsSince` later to get the newer ones. */
  mark(): number;
  refusalsSince(mark: number): ProxyRefusal[];
  close(): Promise<void>;
};

/** The socket's file name inside the proxy directory. */
export const PROXY_SOCKET_NAME = "proxy.sock";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "upgrade",
]);

/** Starts the proxy for `domains` on a fresh socket under the temp dir (mode 0700). */
export async function startDomainProxy(domains: readonly string[]): Promise<DomainProxy> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-proxy-"));
  const socketPath = join(dir, PROXY_SOCKET_NAME);
  const allowlist = createHostAllowlist(domains);
  const refusals: ProxyRefusal[] = [];
  let seq = 0;
  const refuse = (target: string, reason: string): string => {
    refusals.push({ seq: ++seq, target, reason });
    if (refusals.length > 50) refusals.shift();
    return `gyre sandbox proxy refused ${target}: ${reason}. Only the hosts in sandbox.allowedDomains are reachable.\n`;
  };
  const open = new Set<Socket | Duplex>();
  const server = createServer((req, res) => forward(req, res, allowlist, refuse));
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    tunnel(req, client, head, allowlist, refuse, open);
  });
  // WebSocket and other upgrades through an absolute-form request are not supported: refuse plainly.
  server.on("upgrade", (_req: IncomingMessage, client: Duplex) => {
    client.end(rawResponse(501, "gyre sandbox proxy: protocol upgrades are not supported; use CONNECT.\n"));
  });
  await listen(server, socketPath);
  let closing: Promise<void> | undefined;
  return {
    dir,
    socketPath,
    allowlist,
    mark: () => seq,
    refusalsSince: (mark) => refusals.filter((refusal) => refusal.seq > mark),
    close: () => {
      closing ??= (async () => {
        for (const socket of open) socket.destroy();
        const closed = new Promise<void>((done) => server.close(() => done()));
        // Keep-alive connections would hold close() open; the sandbox is gone, so drop them.
        server.closeAllConnections();
        await closed;
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(socketPath, () => {
      server.off("error", fail);
      done();
    });
  });
}

function rawResponse(status: number, body: string): string {
  const text = status === 403 ? "Forbidden" : status === 502 ? "Bad Gateway" : status === 400 ? "Bad Request" : "Error";
  return (
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nX-Gyre-Proxy: refused\r\n\r\n${body}`
  );
}

type Refuse = (target: string, reason: string) => string;

function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  allowlist: HostAllowlist,
  refuse: Refuse,
  open: Set<Socket | Duplex>,
): void {
  const target = req.url ?? "";
  client.on("error", () => client.destroy());
  const authority = parseAuthority(target);
  if (!authority) {
    client.end(rawResponse(403, refuse(target, "the CONNECT target is not a plain host:port")));
    return;
  }
  const verdict = allowlist.check(authority.host);
  if (!verdict.allowed) {
    client.end(rawResponse(403, refuse(target, verdict.reason)));
    return;
  }
  const upstream = connect({ host: verdict.host, port: authority.port });
  open.add(upstream);
  upstream.once("close", () => open.delete(upstream));
  let established = false;
  upstream.once("connect", () => {
    established = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (error) => {
    if (!established && client.writable) {
      client.end(rawResponse(502, `gyre sandbox proxy could not reach ${target}: ${error.message}\n`));
    } else client.destroy();
  });
  client.once("close", () => upstream.destroy());
}

function forward(req: IncomingMessage, res: ServerResponse, allowlist: HostAllowlist, refuse: Refuse): void {
  const target = req.url ?? "";
  const deny = (status: number, body: string) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "x-gyre-proxy": "refused" });
    res.end(body);
  };
  const checked = checkForward(target, allowlist);
  if (!checked.ok) {
    deny(checked.status, refuse(target, checked.reason));
    return;
  }
  const { url, host } = checked;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  // The Host header names what was checked, so a listed server is not asked for another virtual host.
  headers.host = url.port ? `${host}:${url.port}` : host;
  const upstream = request(
    { host, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers },
    (answer) => {
      const back: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) back[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
    },
  );
  upstream.on("error", (error) => {
    if (!res.headersSent) deny(502, `gyre sandbox proxy could not reach ${url.host}: ${error.message}\n`);
    else res.destroy();
  });
  req.pipe(upstream);
}

type Forwardable = { ok: true; url: URL; host: string } | { ok: false; status: number; reason: string };

/** Whether an absolute-form request may be forwarded: http://, no user info, an allowed host. */
function checkForward(target: string, allowlist: HostAllowlist): Forwardable {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, status: 400, reason: "a proxy request needs an absolute http:// URL" };
  }
  if (url.protocol !== "http:") {
    return { ok: false, status: 403, reason: `${url.protocol} is not proxied this way (use CONNECT)` };
  }
  if (url.username || url.password || /^http:\/\/[^/]*@/i.test(target)) {
    return { ok: false, status: 403, reason: "URLs with user info (user@host) are refused" };
  }
  const verdict = allowlist.check(url.hostname);
  return verdict.allowed ? { ok: true, url, host: verdict.host } : { ok: false, status: 403, reason: verdict.reason };
}
