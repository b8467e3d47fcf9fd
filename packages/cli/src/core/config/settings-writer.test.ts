import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { updateSettingsFile } from "./settings-writer.js";

const tempFile = async () => join(await mkdtemp(join(tmpdir(), "gyre-settings-")), "settings.json");

describe("updateSettingsFile", () => {
  it("creates the file, sets nested keys and removes keys set to undefined, keeping the rest", async () => {
    const file = await tempFile();
    await writeFile(file, JSON.stringify({ other: 1, sandbox: { network: true }, maxTurns: 3 }));
    const result = await updateSettingsFile(file, [
      { key: "sandbox.mode", value: "read-only" },
      { key: "maxTurns", value: undefined },
    ]);
    expect(result.ok).toBe(true);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      other: 1,
      sandbox: { network: true, mode: "read-only" },
    });
    const fresh = await tempFile();
    await updateSettingsFile(fresh, [{ key: "theme", value: "light" }]);
    expect(JSON.parse(await readFile(fresh, "utf8"))).toEqual({ theme: "light" });
  });

  it("writes nothing when the result breaks the rules loading checks, and names every problem", async () => {
    const file = await tempFile();
    await writeFile(file, '{"thinking":"low"}');
    const result = await updateSettingsFile(file, [
      { key: "maxTurns", value: -1 },
      { key: "sandbox.mode", value: "open" },
    ]);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toMatch(
      /\/maxTurns must be a positive whole number \(got -1\).*\/sandbox\/mode must be one of/,
    );
    expect(await readFile(file, "utf8")).toBe('{"thinking":"low"}');
  });

  it("leaves a file that is not JSON alone", async () => {
    const file = await tempFile();
    await writeFile(file, "{ broken");
    const result = await updateSettingsFile(file, [{ key: "theme", value: "dark" }]);
    expect(result.ok ? "" : result.error).toContain("is not a JSON object");
    expect(await readFile(file, "utf8")).toBe("{ broken");
  });
});
