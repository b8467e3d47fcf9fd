/**
 * The session's telemetry, when it is on: spans and metrics built from the session's events, so
 * every mode (interactive, print, JSON, RPC, ACP, the fleet's child) gets them. Off (the default)
 * it costs one look at the environment and settings; no OpenTelemetry module is imported.
 */
import type { Settings } from "../config/settings.js";
import type { SessionEvent } from "../session-events.js";
import { telemetryConfigFrom } from "./telemetry-config.js";

/** What the session needs of its telemetry: its events in, and a flush on close. */
export type SessionTelemetry = { observe(event: SessionEvent): void; shutdown(): Promise<void> };

/** Starts telemetry for one session, or returns undefined (nothing loaded) when it is off. */
export async function startTelemetry(options: {
  env: NodeJS.ProcessEnv;
  settings: Settings | undefined;
  subscribe(listener: (event: SessionEvent) => void): () => void;
}): Promise<SessionTelemetry | undefined> {
  const config = telemetryConfigFrom(options.env, options.settings);
  if (!config) return undefined;
  const { createOtelTelemetry } = await import("./otel-telemetry.js");
  const telemetry = createOtelTelemetry(config, options.env);
  const unsubscribe = options.subscribe((event) => telemetry.observe(event));
  return {
    observe: (event) => telemetry.observe(event),
    shutdown: async () => {
      unsubscribe();
      await telemetry.shutdown();
    },
  };
}
