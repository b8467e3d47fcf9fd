import { describeError, GyreError, isAbortError } from "../errors.js";
import type { RetryInfo, RetryOptions } from "../types.js";
import { nodeHttpFetch } from "./node-http.js";
import { stringifyRequest } from "./request-json.js";

const retryableStatuses = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const defaultRetry: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** `options` with every default filled in. */
export function resolveRetry(options: RetryOptions | undefined): Required<RetryOptions> {
  return { ...defaultRetry, ...options };
}

/** The wait before retry number `attempt + 1`: exponential from `baseDelayMs`, with jitter, capped. */
export function backoffDelayMs(retry: Required<RetryOptions>, attempt: number): number {
  const backoff = retry.baseDelayMs * 2 ** attempt;
  return Math.min(retry.maxDelayMs, backoff / 2 + Math.random() * (backoff / 2));
}

/**
 * Whether a failure is worth another attempt: a timeout, a broken connection, or an HTTP-class
 * error whose status is retryable (408/409/429/5xx/529, also when a provider reported it inside
 * a 200 stream).
 */
export function isRetryableFailure(error: unknown): boolean {
  if (!(error instanceof GyreError)) return false;
  if (error.code === "timeout" || error.code === "network") return true;
  return (
    error.code === "http" && error.status !== undefined && (retryableStatuses.has(error.status) || error.status >= 500)
  );
}

export type PostOptions = {
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** The body already serialized as JSON (text or UTF-8, lone surrogates already replaced); sent instead of `body`. */
  serializedBody?: string | Uint8Array;
  signal?: AbortSignal;
  retry?: RetryOptions;
  onRetry?: (info: RetryInfo) => void;
  /** Names the provider in error messages ("OpenAI", "Anthropic"…). */
  providerLabel: string;
  /** How long to wait for the response headers of one attempt. Default 120000 ms. */
  responseTimeoutMs?: number;
};

/**
 * POSTs JSON and returns the successful response (status 2xx), retrying 408/409/429/5xx/529 and
 * connection failures with exponential backoff and jitter, honouring `retry-after` up to
 * `maxDelayMs`. Throws `GyreError` with the provider's own message otherwise. Retries happen only
 * here, before any body byte is read, so no output is ever duplicated.
 */
export async function postJson(options: PostOptions): Promise<Response> {
  const retry = resolveRetry(options.retry);
  const body = options.serializedBody ?? stringifyRequest(options.body);
  for (let attempt = 0; ; attempt++) {
    let failure: { reason: string; serverDelayMs?: number; error: GyreError };
    // A watchdog for the headers only: once they arrive, the body's idle timeout takes over.
    const waiting = new AbortController();
    const responseTimeoutMs = options.responseTimeoutMs ?? 120_000;
    const watchdog = setTimeout(() => waiting.abort(), responseTimeoutMs);
    try {
      const response = await nodeHttpFetch(options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body,
        signal: options.signal ? AbortSignal.any([options.signal, waiting.signal]) : waiting.signal,
      });
      clearTimeout(watchdog);
      if (response.ok && /text\/html/i.test(response.headers.get("content-type") ?? "")) {
        const page = describeHtmlPage((await response.text().catch(() => "")).trim());
        throw new GyreError(
          "http",
          `${options.providerLabel} answered ${response.status} with ${page ?? "an HTML page instead of a model stream; check the base URL or proxy"}.`,
          { status: response.status },
        );
      }
      if (response.ok) return response;
      const text = await response.text().catch(() => "");
      // "(no body)" is a signal of its own: some servers (Cerebras) answer an overflow with a bare 400.
      const detail = extractErrorMessage(text);
      const message = detail
        ? `${options.providerLabel} API error ${response.status}: ${detail}`
        : `${options.providerLabel} API error ${response.status} (no body)${response.statusText ? `: ${response.statusText}` : ""}`;
      const error = new GyreError("http", message, { status: response.status });
      if (!isRetryable(response.status, text)) throw error;
      failure = {
        reason: message,
        serverDelayMs: parseRetryAfter(response.headers) ?? parseBodyRetryDelay(text),
        error,
      };
    } catch (error) {
      clearTimeout(watchdog);
      if (error instanceof GyreError) throw error;
      if (options.signal?.aborted) throw new GyreError("aborted", "Request was aborted.");
      if (waiting.signal.aborted) {
        const message = `${options.providerLabel} at ${options.url} sent no response within ${formatDuration(responseTimeoutMs)}`;
        failure = { reason: message, error: new GyreError("timeout", message) };
      } else {
        if (isAbortError(error)) throw new GyreError("aborted", "Request was aborted.");
        const message = `Could not reach ${options.providerLabel} at ${options.url}: ${describeCause(error)}`;
        failure = { reason: message, error: new GyreError("network", message, { cause: error }) };
      }
    }
    if (attempt >= retry.maxRetries) {
      const suffix = retry.maxRetries > 0 ? ` (gave up after ${retry.maxRetries + 1} attempts)` : "";
      throw new GyreError(failure.error.code, failure.error.message + suffix, { status: failure.error.status });
    }
    if (failure.serverDelayMs !== undefined && failure.serverDelayMs > retry.maxDelayMs) {
      throw new GyreError(
        "retry_wait_too_long",
        `${failure.reason} — the server asked to wait ${Math.ceil(failure.serverDelayMs / 1000)} s (until ` +
          `${new Date(Date.now() + failure.serverDelayMs).toISOString().slice(11, 16)} UTC) before retrying, longer than ` +
          `the ${Math.ceil(retry.maxDelayMs / 1000)} s limit (retry.maxDelayMs), so gyre did not wait; try again then, ` +
          "or raise retry.maxDelayMs to let gyre wait.",
        { status: failure.error.status },
      );
    }
    const delayMs = failure.serverDelayMs ?? backoffDelayMs(retry, attempt);
    options.onRetry?.({ attempt: attempt + 1, maxRetries: retry.maxRetries, delayMs, reason: failure.reason });
    await sleep(delayMs, options.signal);
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

function isRetryable(status: number, body: string): boolean {
  if (retryableStatuses.has(status) || status >= 500) return true;
  return /overloaded_error/.test(body);
}

/** The provider's own error message from a JSON error body, or the trimmed text. */
export function extractErrorMessage(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return "";
  try {
    const parsed: unknown = JSON.parse(trimmed);
    const candidate = Array.isArray(parsed) ? parsed[0] : parsed;
    if (candidate && typeof candidate === "object") {
      const record = candidate as Record<string, unknown>;
      const inner = record.error;
      if (inner && typeof inner === "object") {
        const message = (inner as Record<string, unknown>).message;
        if (typeof message === "string") return message;
      }
      if (typeof inner === "string") return inner;
      if (typeof record.message === "string") return record.message;
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const html = describeHtmlPage(trimmed);
  if (html) return html;
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed;
}

/** A proxy's or gateway's HTML error page, by its title (or text), instead of raw markup. */
function describeHtmlPage(text: string): string | undefined {
  if (!/^<(?:!doctype\s+html|html|head|body)\b/i.test(text)) return undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const body = text
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const summary = (title?.trim() || body).slice(0, 200);
  return `an HTML page${summary ? ` ("${summary}")` : ""} came back instead of an API answer; check the base URL or proxy`;
}

function parseRetryAfter(headers: Headers): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Google puts the wait in the body: `error.details[].retryDelay: "34.4s"`. */
function parseBodyRetryDelay(body: string): number | undefined {
  const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(body);
  return match?.[1] ? Math.round(Number(match[1]) * 1000) : undefined;
}

function describeCause(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  return cause ? `${describeError(error)} (${cause.message})` : describeError(error);
}

/** Resolves after `ms`, or rejects with an abort error when `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new GyreError("aborted", "Request was aborted."));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new GyreError("aborted", "Request was aborted."));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
