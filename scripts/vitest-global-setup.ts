import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The recorded provider streams the provider tests replay, vendored in the repository. */
const fixtureFolders = ["anthropic-messages", "google-gemini", "openai-completions", "openai-responses"];

/**
 * Throws one sentence naming the first missing fixture folder, so a broken checkout stops the run
 * at once instead of failing dozens of tests one ENOENT at a time.
 */
export function assertFixturesPresent(root: URL): void {
  for (const folder of fixtureFolders) {
    const path = fileURLToPath(new URL(`packages/ai/test/fixtures/providers/${folder}/`, root));
    if (!existsSync(path)) {
      throw new Error(`The provider fixture folder ${path} is missing; restore it from git (git checkout -- ${path}).`);
    }
  }
}

/**
 * Checks the fixtures and bundles the CLI once before the tests, so end-to-end tests run the
 * current sources. Each project that names this setup runs it (e2e, slow, install); the first
 * bundles, and marks the process so that the others of the same run do not bundle again.
 */
export default function setup(): void {
  assertFixturesPresent(new URL("../", import.meta.url));
  if (process.env.GYRE_TEST_BUNDLED === String(process.pid)) return;
  execFileSync(process.execPath, [fileURLToPath(new URL("./bundle.mjs", import.meta.url))], { stdio: "inherit" });
  process.env.GYRE_TEST_BUNDLED = String(process.pid);
}
