import { postJson } from "../transport/http.js";
import type { StreamOptions } from "../types.js";
import type { MessageBuilder } from "./message-builder.js";

/** What differs between the providers' requests; the rest comes from the stream options. */
export type ProviderRequest = {
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** The body already serialized; sent instead of `body`. */
  serializedBody?: string | Uint8Array;
  /** Names the provider in error messages. */
  providerLabel: string;
};

/**
 * POSTs a provider request with the call's signal, retry policy, retry callback and header
 * timeout (`postJson`), and marks `builder` once the headers arrived, so `runProvider` knows
 * later faults came after them. Throws what `postJson` throws.
 */
export async function postProviderRequest(
  builder: MessageBuilder,
  options: StreamOptions,
  request: ProviderRequest,
): Promise<Response> {
  const response = await postJson({
    ...request,
    signal: options.signal,
    retry: options.retry,
    onRetry: options.onRetry,
    ...(options.idleTimeoutMs !== undefined ? { responseTimeoutMs: options.idleTimeoutMs } : {}),
  });
  builder.responseStarted = true;
  return response;
}
