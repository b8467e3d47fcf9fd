import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { assertFixturesPresent } from "./vitest-global-setup.js";

const folders = ["anthropic-messages", "google-gemini", "openai-completions", "openai-responses"];
let root = "";
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function checkoutWith(present: string[]): Promise<URL> {
  root = await mkdtemp(join(tmpdir(), "gyre-fixtures-"));
  for (const folder of present)
    await mkdir(join(root, "packages/ai/test/fixtures/providers", folder), { recursive: true });
  return pathToFileURL(`${root}/`);
}

describe("assertFixturesPresent", () => {
  it("passes when every provider fixture folder is in the checkout", async () => {
    expect(() => assertFixturesPresent(new URL("../", import.meta.url))).not.toThrow();
    const url = await checkoutWith(folders);
    expect(() => assertFixturesPresent(url)).not.toThrow();
  });

  it("stops with one sentence naming the missing folder", async () => {
    const url = await checkoutWith(folders.filter((folder) => folder !== "google-gemini"));
    expect(() => assertFixturesPresent(url)).toThrow(
      /^The provider fixture folder .*google-gemini\/ is missing; restore it from git/,
    );
  });
});
