/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it accepts the JSON encoding the
 * exporter sends (`/v1/traces`, `/v1/metrics`), keeps every body, and flattens the spans with their
 * attributes decoded from OTLP's `{ key, value: { stringValue | intValue | … } }` shape.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  status?: { code?: number };
};

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};

function decodeValue(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]));
}

export type OtlpReceiver = {
  url: string;
  /** Every body as it arrived (text), for checks that nothing secret was sent. */
  raw: string[];
  spans(): ReceivedSpan[];
  /** Metric names received, with the resource's service.name of each batch. */
  metrics(): { name: string; service: unknown }[];
  contentTypes: string[];
  close(): Promise<void>;
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const traces: unknown[] = [];
  const metricBodies: unknown[] = [];
  const raw: string[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      raw.push(text);
      contentTypes.push(String(request.headers["content-type"]));
      try {
        const body = JSON.parse(text) as unknown;
        if (request.url === "/v1/traces") traces.push(body);
        else if (request.url === "/v1/metrics") metricBodies.push(body);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    raw,
    contentTypes,
    spans: () =>
      traces.flatMap((body) =>
        (
          (body as { resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }).resourceSpans ?? []
        ).flatMap((resource) =>
          (resource.scopeSpans ?? []).flatMap((scope) =>
            (scope.spans ?? []).map((span) => ({
              traceId: String(span.traceId),
              spanId: String(span.spanId),
              parentSpanId: String(span.parentSpanId ?? ""),
              name: String(span.name),
              attributes: decodeAttributes(span.attributes as { key: string; value: OtlpValue }[]),
              status: span.status as { code?: number },
            })),
          ),
        ),
      ),
    metrics: () =>
      metricBodies.flatMap((body) =>
        (
          (
            body as {
              resourceMetrics?: {
                resource?: { attributes?: { key: string; value: OtlpValue }[] };
                scopeMetrics?: { metrics?: { name: string }[] }[];
              }[];
            }
          ).resourceMetrics ?? []
        ).flatMap((resource) =>
          (resource.scopeMetrics ?? []).flatMap((scope) =>
            (scope.metrics ?? []).map((metric) => ({
              name: metric.name,
              service: decodeAttributes(resource.resource?.attributes)["service.name"],
            })),
          ),
        ),
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
