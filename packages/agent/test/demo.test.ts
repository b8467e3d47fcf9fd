import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
// Brings the demo entry into the type check with the tests (the root tsconfig does not include examples/).
import "../examples/seed-demos.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/demo.mjs"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("npm run demo prints the seed demos exactly as the golden file", async () => {
  const expected = await readFile(new URL("./demo.golden.txt", import.meta.url), "utf8");
  const { code, stdout, stderr } = await runDemo();
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toBe(expected);
});
