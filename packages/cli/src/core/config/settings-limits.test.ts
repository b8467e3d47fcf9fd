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
    [{ idleTimeoutMs: 3_000_000_000 }, /"idleTimeoutMs" is 3000000000 ms, above the 2147483647 ms/],
    [{ bashTimeoutMs: 3e9 }, /"bashTimeoutMs" is 3000000000 ms, above/],
    [{ bashTimeoutMs: 1e-9 }, /"bashTimeoutMs" is 1e-9 ms; a timer needs at least 1 ms/],
    [{ maxWallTimeMs: 2 ** 31 }, /"maxWallTimeMs" .* above/],
    [{ retry: { maxDelayMs: 5e9 } }, /"retry.maxDelayMs" is 5000000000 ms, above/],
    [{ retry: { maxRetries: 1e9 } }, /"retry.maxRetries" is 1000000000; at most 100/],
    [{ checkpoints: { maxFileBytes: 0 } }, /"checkpoints.maxFileBytes" must be a whole number of bytes above 0/],
    [{ checkpoints: { maxSnapshotBytes: "1GB" } }, /"checkpoints.maxSnapshotBytes" must be a whole number of bytes/],
    [
      { checkpoints: { maxDiskBytes: 5 } },
      /"checkpoints.maxDiskBytes" is not a setting; use maxFileBytes, maxSnapshotBytes/,
    ],
    [{ approval: "sometimes" }, /"approval" must be one of ask, deny, allow/],
    [{ theme: "../up" }, /"theme" must be dark, light or the name of a file/],
  ])("refuses %j with a clear sentence", async (value, message) => {
    await expect(readSettingsFile(await settingsFile(value))).rejects.toThrow(message);
  });

  it("accepts checkpoint size caps", async () => {
    const checkpoints = { maxFileBytes: 1024, maxSnapshotBytes: 1 << 20, maxRepositoryBytes: 1 << 30 };
    expect(await readSettingsFile(await settingsFile({ checkpoints }))).toEqual({ checkpoints });
  });

  it("accepts the largest timer Node can hold and a file that starts with a BOM", async () => {
    expect(await readSettingsFile(await settingsFile({ bashTimeoutMs: 2 ** 31 - 1 }, "\uFEFF"))).toEqual({
      bashTimeoutMs: 2 ** 31 - 1,
    });
  });
});
