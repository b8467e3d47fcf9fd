import { describe, expect, it } from "vitest";
import { isTraceparent, telemetryConfigFrom, traceparentForJob } from "./telemetry-config.js";

describe("telemetry config", () => {
  it("is off without an endpoint, and off when disabled even with one", () => {
    expect(telemetryConfigFrom({}, undefined)).toBeUndefined();
    expect(
      telemetryConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" }, undefined),
    ).toBeUndefined();
    expect(
      telemetryConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, { telemetry: { enabled: false } }),
    ).toBeUndefined();
  });

  it("orders per-signal variables over the base one over the setting, as the specification does", () => {
    expect(
      telemetryConfigFrom({}, { telemetry: { otlpEndpoint: "http://s:4318/", serviceName: "ci", logContent: true } }),
    ).toEqual({
      tracesUrl: "http://s:4318/v1/traces",
      metricsUrl: "http://s:4318/v1/metrics",
      serviceName: "ci",
      logContent: true,
    });
    const config = telemetryConfigFrom(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://e:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1/x",
        OTEL_SERVICE_NAME: "svc",
      },
      { telemetry: { otlpEndpoint: "http://s:4318" } },
    );
    expect(config).toMatchObject({
      tracesUrl: "http://t:1/x",
      metricsUrl: "http://e:4318/v1/metrics",
      serviceName: "svc",
      logContent: false,
    });
  });

  it("takes a valid TRACEPARENT only, and gives fleet jobs one", () => {
    const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(isTraceparent(valid)).toBe(true);
    expect(isTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01")).toBe(false);
    expect(isTraceparent("garbage")).toBe(false);
    expect(
      telemetryConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", TRACEPARENT: "bad" }, undefined)?.traceparent,
    ).toBeUndefined();
    expect(traceparentForJob({ TRACEPARENT: valid })).toBe(valid);
    expect(traceparentForJob({})).toBeUndefined();
    const fresh = traceparentForJob({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" });
    expect(isTraceparent(fresh)).toBe(true);
    expect(fresh).not.toBe(traceparentForJob({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }));
  });
});
