import { describe, expect, it } from "vitest";
import { expiresSoon } from "./oauth-token-calls.js";

const record = (obtainedAt: number | undefined, expiresAt: number | undefined) => ({
  serverUrl: "http://127.0.0.1:1/mcp",
  ...(obtainedAt !== undefined ? { obtainedAt } : {}),
  ...(expiresAt !== undefined ? { expiresAt } : {}),
});

describe("expiresSoon", () => {
  it("refreshes a one-hour token in its last minute only", () => {
    const hour = 3_600_000;
    expect(expiresSoon(record(0, hour), hour - 61_000)).toBe(false);
    expect(expiresSoon(record(0, hour), hour - 59_000)).toBe(true);
  });

  it("refreshes a short token in the last fifth of its lifetime, and an expired one", () => {
    expect(expiresSoon(record(0, 10_000), 7_900)).toBe(false);
    expect(expiresSoon(record(0, 10_000), 8_100)).toBe(true);
    expect(expiresSoon(record(0, 10_000), 12_000)).toBe(true);
  });

  it("leaves a token without an expiry to the server, and uses a minute when the lifetime is unknown", () => {
    expect(expiresSoon(record(0, undefined), Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(expiresSoon(record(undefined, 100_000), 30_000)).toBe(false);
    expect(expiresSoon(record(undefined, 100_000), 50_000)).toBe(true);
  });
});
