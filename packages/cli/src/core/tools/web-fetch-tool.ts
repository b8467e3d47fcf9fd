/**
 * The web_fetch tool: GET one http(s) URL with bounded redirects, size and time; HTML becomes
 * Markdown (node-html-markdown, loaded on the first HTML page: start-up), other text is returned
 * as it is; the result is paged like the read tool's (`offset` in lines). Obeys the network
 * setting: with networking off only `allowedDomains` are reachable. Runs in gyre's process (no
 * sandbox needed: it only reads).
 */
import type { AgentTool } from "@gyre/agent";
import { describeError } from "@gyre/ai";
import { Type } from "@sinclair/typebox";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "./truncate.js";

const webFetchParameters = Type.Object({
  url: Type.String({ description: "The http:// or https:// URL to fetch." }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "Line of the converted page to start at (1-based)." })),
});

export type WebFetchToolDetails = {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  bytes: number;
  totalLines: number;
  startLine: number;
  endLine: number;
  truncated: boolean;
};

export type WebFetchToolOptions = {
  /** Whether the network is on (sandbox `network` setting or `--allow-network`). Default true. */
  networkAllowed?: boolean;
  /** Hosts reachable even with the network off (exact names or `*.example.com`). */
  allowedDomains?: readonly string[];
  maxRedirects?: number;
  /** Largest body read. Default 5 MB. */
  maxResponseBytes?: number;
  timeoutMs?: number;
  maxLines?: number;
  maxBytes?: number;
};

const TEXTUAL =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+json|[^;]*\+xml)/i;

/** Creates the web_fetch tool. */
export function createWebFetchTool(
  options: WebFetchToolOptions = {},
): AgentTool<typeof webFetchParameters, WebFetchToolDetails> {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return {
    name: "web_fetch",
    readOnly: true,
    label: "Fetch",
    description:
      "Fetch a web page or text document by URL (GET, http/https only). HTML is converted to Markdown; at most " +
      `${maxLines} lines or ${formatSize(maxBytes)} are returned per call, pass offset to read further. ` +
      "Binary content (images, PDFs, archives) is refused.",
    parameters: webFetchParameters,
    async execute(args, { signal }) {
      const url = parseUrl(args.url);
      checkNetwork(url, options);
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      const page = await fetchPage(url, { ...options, signal: AbortSignal.any([signal, timeout]) }).catch(
        (error: unknown) => {
          if (signal.aborted) throw error;
          if (timeout.aborted)
            throw new Error(`Fetching ${url.href} timed out after ${(options.timeoutMs ?? 30_000) / 1000} s.`);
          throw error;
        },
      );
      const text = page.isHtml ? await htmlToMarkdown(page.body) : page.body;
      const lines = text.split("\n");
      const start = Math.min(args.offset ?? 1, Math.max(lines.length, 1));
      const window = truncateHead(lines.slice(start - 1).join("\n"), { maxLines, maxBytes });
      const end = start + window.keptLines - 1;
      let content = window.text;
      if (window.truncated) {
        content += `\n\n[Lines ${start}-${end} of ${lines.length} shown. Use offset=${end + 1} to continue.]`;
      }
      if (page.clipped) content += `\n\n[The page is larger than ${formatSize(page.limit)}; only its start was read.]`;
      return {
        content: [{ type: "text", text: content }],
        details: {
          url: url.href,
          finalUrl: page.finalUrl,
          status: page.status,
          contentType: page.contentType,
          bytes: page.bytes,
          totalLines: lines.length,
          startLine: start,
          endLine: end,
          truncated: window.truncated || page.clipped,
        },
      };
    },
  };
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a URL. Pass a full address such as https://example.com/page.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`Only http and https URLs can be fetched, not ${url.protocol}. Use read for local files.`);
  }
  if (url.username !== "" || url.password !== "")
    throw new Error("URLs with credentials (user:password@) are refused.");
  return url;
}

/** True when `host` is listed exactly, or matches a `*.domain` entry (a subdomain, not the bare domain). */
export function isHostAllowed(host: string, allowedDomains: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return allowedDomains.some((entry) => {
    const domain = entry.toLowerCase();
    return domain.startsWith("*.") ? name.endsWith(domain.slice(1)) : name === domain;
  });
}

function checkNetwork(url: URL, options: WebFetchToolOptions): void {
  if (options.networkAllowed !== false) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isHostAllowed(host, options.allowedDomains ?? [])) return;
  throw new Error(
    `The network is off in this session and ${host} is not in sandbox.allowedDomains. ` +
      "Work from local files, or ask the user to allow the domain (settings sandbox.allowedDomains) or the network (--allow-network).",
  );
}

type Page = {
  body: string;
  isHtml: boolean;
  status: number;
  contentType: string;
  finalUrl: string;
  bytes: number;
  clipped: boolean;
  limit: number;
};

async function fetchPage(start: URL, options: WebFetchToolOptions & { signal: AbortSignal }): Promise<Page> {
  const limit = options.maxResponseBytes ?? 5 * 1024 * 1024;
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const response = await fetch(url, {
      redirect: "manual",
      signal: options.signal,
      headers: {
        accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1",
        "user-agent": "gyre-web-fetch",
      },
    }).catch((error: unknown) => {
      if (options.signal.aborted) throw error;
      throw new Error(`Could not reach ${url.host}: ${describeError(error)}.`);
    });
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      if (redirects >= (options.maxRedirects ?? 5))
        throw new Error(`Too many redirects from ${start.href}; stopped at ${url.href}.`);
      url = parseUrl(new URL(location, url).href);
      checkNetwork(url, options);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(
        `${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`,
      );
    }
    const contentType = response.headers.get("content-type") ?? "";
    if (contentType !== "" && !TEXTUAL.test(contentType)) {
      await response.body?.cancel();
      throw new Error(
        `${url.href} is ${contentType.split(";")[0]}, not text; web_fetch only returns text and HTML pages.`,
      );
    }
    const { text, bytes, clipped } = await readBody(response, limit);
    const isHtml = /html/i.test(contentType) || (contentType === "" && /^\s*<(!doctype html|html)/i.test(text));
    return { body: text, isHtml, status: response.status, contentType, finalUrl: url.href, bytes, clipped, limit };
  }
}

async function readBody(response: Response, limit: number): Promise<{ text: string; bytes: number; clipped: boolean }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let clipped = false;
  const reader = response.body?.getReader();
  while (reader !== undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - bytes;
    chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
    bytes += Math.min(value.byteLength, room);
    if (value.byteLength >= room) {
      clipped = value.byteLength > room || !(await reader.read()).done;
      await reader.cancel();
      break;
    }
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
  if (text.includes("\u0000")) throw new Error("The response contains NUL bytes: it is binary, not text.");
  return { text, bytes, clipped };
}

async function htmlToMarkdown(html: string): Promise<string> {
  // Loaded on the first HTML page: it is not needed at start-up.
  const { NodeHtmlMarkdown } = await import("node-html-markdown");
  return NodeHtmlMarkdown.translate(html, { ignore: ["script", "style", "noscript", "svg", "head"] })
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
