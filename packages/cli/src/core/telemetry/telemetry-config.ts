/**
 * Whether telemetry is on, and where it goes, from the standard OpenTelemetry variables and the
 * `telemetry` settings (docs/usage-and-telemetry.md). Reading it loads nothing: the OpenTelemetry
 * modules are imported only when this returns a config.
 */
import { randomBytes } from "node:crypto";
import type { Settings } from "../config/settings.js";

export type TelemetryConfig = {
  /** Where spans go (an OTLP/HTTP traces URL). */
  tracesUrl: string;
  /** Where metrics go (an OTLP/HTTP metrics URL). */
  metricsUrl: string;
  serviceName: string;
  /** Export prompts, answers and tool output (default: names, sizes and counts only). */
  logContent: boolean;
  /** W3C trace context of a parent span (the `TRACEPARENT` a fleet worker passes down). */
  traceparent?: string;
};

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** True for a well-formed W3C `traceparent` value. */
export function isTraceparent(value: string | undefined): value is string {
  return value !== undefined && TRACEPARENT.test(value) && !/^[0-9a-f]{2}-0{32}-/.test(value);
}

function signalUrl(base: string, signal: "traces" | "metrics"): string {
  return `${base.replace(/\/+$/, "")}/v1/${signal}`;
}

/**
 * The telemetry config, or undefined when it is off: no endpoint, `OTEL_SDK_DISABLED=true`, or
 * `telemetry.enabled: false`. The env's per-signal endpoints win over the base one, which wins
 * over the setting, as the OpenTelemetry specification orders them.
 */
export function telemetryConfigFrom(
  env: NodeJS.ProcessEnv,
  settings: Settings | undefined,
): TelemetryConfig | undefined {
  const options = settings?.telemetry;
  if (options?.enabled === false || env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || options?.otlpEndpoint;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? signalUrl(base, "traces") : undefined);
  if (!traces) return undefined;
  const metrics =
    env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ||
    (base ? signalUrl(base, "metrics") : traces.replace(/\/v1\/traces$/, "/v1/metrics"));
  return {
    tracesUrl: traces,
    metricsUrl: metrics,
    serviceName: env.OTEL_SERVICE_NAME || options?.serviceName || "gyre",
    logContent: options?.logContent === true,
    ...(isTraceparent(env.TRACEPARENT) ? { traceparent: env.TRACEPARENT } : {}),
  };
}

/**
 * The trace context a fleet job carries from `gyre submit` to the worker's child: the submitter's
 * own `TRACEPARENT` when it has one, else a new trace when telemetry is on (so every attempt of the
 * job is one trace), else none.
 */
export function traceparentForJob(env: NodeJS.ProcessEnv): string | undefined {
  if (isTraceparent(env.TRACEPARENT)) return env.TRACEPARENT;
  if (!telemetryConfigFrom(env, undefined)) return undefined;
  return `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`;
}
