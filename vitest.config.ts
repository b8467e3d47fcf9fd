import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@gyre\/ai\/testing$/, replacement: src("./packages/ai/src/testing.ts") },
      { find: /^@gyre\/ai$/, replacement: src("./packages/ai/src/index.ts") },
      { find: /^@gyre\/agent$/, replacement: src("./packages/agent/src/index.ts") },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "scripts/**/*.test.ts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    globalSetup: ["./scripts/vitest-global-setup.ts"],
    testTimeout: 20_000,
    pool: "forks",
  },
});
