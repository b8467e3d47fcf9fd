import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { moduleLogger } from "../helpers/module-logger.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";
import { startOtlpReceiver } from "./otlp-receiver.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Whether any loaded file is, or contains, OpenTelemetry (its API registers this global key). */
async function loadsOpenTelemetry(urls: string[]): Promise<boolean> {
  for (const url of urls) {
    if (url.includes("@opentelemetry")) return true;
    const text = await readFile(fileURLToPath(url), "utf8").catch(() => "");
    if (text.includes("opentelemetry.js.api")) return true;
  }
  return false;
}

describe("telemetry off", () => {
  it("loads no OpenTelemetry module without an endpoint, and does with one", async () => {
    const server = await startFakeModelServer({ respond: () => ({ text: "DONE" }) });
    closers.push(() => server.close());
    const receiver = await startOtlpReceiver();
    closers.push(() => receiver.close());
    const { cwd, home } = await createWorkspace();
    const run = async (extra: Record<string, string>) => {
      const logger = await moduleLogger();
      const env = cliEnv(home, {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: `${server.url}/v1`,
        NODE_OPTIONS: logger.nodeOptions,
        ...extra,
      });
      const result = await runCli(["-p", "--provider", "openai", "--model", "gpt-4o", "hi"], { cwd, env });
      expect(result.stdout).toContain("DONE");
      const loaded = await logger.loaded();
      expect(loaded.some((url) => url.includes("/dist/gyre.js"))).toBe(true);
      return loadsOpenTelemetry(loaded);
    };
    expect(await run({})).toBe(false);
    expect(receiver.raw).toEqual([]);
    expect(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })).toBe(true);
    expect(receiver.spans().length).toBeGreaterThan(0);
    // Disabled by the standard switch even with an endpoint.
    expect(await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "true" })).toBe(false);
  }, 60_000);
});
