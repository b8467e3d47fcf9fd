/**
 * The public entry of `gyre` at run time: importing it loads the library without starting the CLI.
 * What the packed packages contain and the type check of a program written against the
 * declarations are `npm run check:package` (scripts/check-package.mjs).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../../../", import.meta.url));
let consumerDir = "";

beforeAll(async () => {
  // Inside the repository, so "gyre" resolves through the workspace link as it would from node_modules.
  consumerDir = await mkdtemp(join(root, ".gyre-test-consumer-"));
});

afterAll(async () => {
  if (consumerDir) await rm(consumerDir, { recursive: true, force: true });
});

describe("the public entry of gyre", () => {
  it("loads at run time without starting the CLI", async () => {
    const script =
      'const m = await import("gyre"); console.log(typeof m.RpcClient, typeof m.createCodingTools, m.rpcCommandTypes.includes("prompt"));';
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumerDir });
    expect(stdout.trim()).toBe("function function true");
  });
});
