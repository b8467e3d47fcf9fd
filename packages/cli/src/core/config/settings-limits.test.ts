import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSettingsFile } from "./settings.js";

async function settingsFile(value: unknown, prefix = ""): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), "gyre-settings-")), "settings.json");
  await writeFile(file, `${prefix}${JSON.stringify(value)}`);
  return file;
}

describe("timer and limit settings", () => {
  it.each([
    [
      { idleTimeoutMs: 3_000_000_000 },
      /\/idleTimeoutMs must be a number from 1 to 2147483647 \(got 3000000000\): a Node timer waits/,
    ],
    [{ bashTimeoutMs: 3e9 }, /\/bashTimeoutMs must be a number from 1 to 2147483647 \(got 3000000000\)/],
    [{ bashTimeoutMs: 1e-9 }, /\/bashTimeoutMs must be a number from 1 to 2147483647 \(got 1e-9\)/],
    [{ maxWallTimeMs: 2 ** 31 }, /\/maxWallTimeMs must be a number from 1 to 2147483647 \(got 2147483648\)/],
    [{ retry: { maxDelayMs: 5e9 } }, /\/retry\/maxDelayMs must be a number from 0 to 2147483647 \(got 5000000000\)/],
    [{ retry: { maxRetries: 1e9 } }, /\/retry\/maxRetries must be a number from 0 to 100 \(got 1000000000\)/],
    [
      { checkpoints: { maxFileBytes: 0 } },
      /\/checkpoints\/maxFileBytes must be a whole number of bytes above 0 \(got 0\)/,
    ],
    [
      { checkpoints: { maxSnapshotBytes: "1GB" } },
      /\/checkpoints\/maxSnapshotBytes must be a whole number of bytes above 0 \(got "1GB"\)/,
    ],
    [
      { checkpoints: { maxDiskBytes: 5 } },
      /\/checkpoints\/maxDiskBytes is not a known key; use maxFileBytes, maxSnapshotBytes/,
    ],
    [{ approval: "sometimes" }, /\/approval must be one of "ask", "deny", "allow" \(got "sometimes"\)/],
    [{ theme: "../up" }, /\/theme must be dark, light or the name of a file in \$GYRE_HOME\/themes .*\(got "..\/up"\)/],
  ])("refuses %j with a clear sentence", async (value, message) => {
    await expect(readSettingsFile(await settingsFile(value))).rejects.toThrow(message);
  });

  it("accepts checkpoint size caps", async () => {
    const checkpoints = { maxFileBytes: 1024, maxSnapshotBytes: 1 << 20, maxRepositoryBytes: 1 << 30 };
    expect(await readSettingsFile(await settingsFile({ checkpoints }))).toEqual({
      settings: { checkpoints },
      warnings: [],
    });
  });

  it("accepts the largest timer Node can hold and a file that starts with a BOM", async () => {
    expect(await readSettingsFile(await settingsFile({ bashTimeoutMs: 2 ** 31 - 1 }, "\uFEFF"))).toEqual({
      settings: { bashTimeoutMs: 2 ** 31 - 1 },
      warnings: [],
    });
  });
});
