/**
 * The test suite in three layers (CONTRIBUTING.md#tests), and the install check:
 * - `unit`: tests beside the code and the in-process tests (no CLI bundle, short timeouts); what a
 *   developer runs while editing, `npm run test:unit`.
 * - `e2e`: every other test: the spawned CLI, tmux, MCP servers, bubblewrap, git. The global setup
 *   that bundles the CLI belongs to this layer and `slow`.
 * - `slow`: Redis fleets and 100-job drains, run beside the other two.
 * - `install`: packs the tarballs and installs them as the README says, from the npm registry;
 *   part of `npm run check` (`check:install`), not of `npm test` (`--project=!install`).
 * `npm test` runs the three layers. A test file is in `e2e` unless it is listed in `unit`, `slow`
 * or `install`, so none is left out.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The files of packages/cli/test that start no process (the code under test may run ripgrep).
 * core/long-sessions starts none either, but its 6 s of long runs belong with the e2e layer.
 */
const inProcessCliTests = [
  "core/agent-session-door",
  "core/agent-session",
  "hooks/nested-context",
  "interactive/components",
  "interactive/sanitize-text",
  "interactive/streaming-markdown",
  "qa/redact-secrets",
  "sdk/create-agent-session",
  "sdk/model-registry",
  "tools/non-utf8-names",
  "tools/search-tools",
].map((name) => `packages/cli/test/${name}.test.ts`);

const unit = [
  "packages/*/src/**/*.test.ts",
  "packages/ai/test/**/*.test.ts",
  // All but demo.test.ts, which runs the demo script as a child.
  "packages/agent/test/[!d]*.test.ts",
  "packages/agent/test/demo-*.test.ts",
  ...inProcessCliTests,
  "scripts/doc-blocks.test.ts",
  "scripts/vitest-global-setup.test.ts",
];
/**
 * Unit files that need a process of their own: a module registry of their own (they call
 * `vi.resetModules` to load a module afresh), or a resident-memory figure no other file's threads
 * add to (read-large: 115 MB of "growth" on Node 24 came from files beside it). The
 * `unit-isolated` project runs them with vitest's default isolation, one forked process a file.
 */
const ownProcessTests = [
  "packages/ai/src/process-state.test.ts",
  "packages/cli/src/modes/interactive/colour-support.test.ts",
  "packages/cli/test/tools/read-large.test.ts",
];
/** The fleet and packaging folders, and any file named `*.slow.test.ts`. */
const slow = ["packages/fleet/test/**/*.test.ts", "packages/cli/test/package/**/*.test.ts", "**/*.slow.test.ts"];
/** The README's installs, word for word, on an empty npm cache (the registry is their one outside host). */
const install = ["packages/cli/test/package/install.test.ts"];
const every = ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "scripts/**/*.test.ts"];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@gyre\/ai\/testing$/, replacement: src("./packages/ai/src/testing.ts") },
      { find: /^@gyre\/ai$/, replacement: src("./packages/ai/src/index.ts") },
      { find: /^@gyre\/agent$/, replacement: src("./packages/agent/src/index.ts") },
      { find: /^@gyre\/fleet$/, replacement: src("./packages/fleet/src/index.ts") },
      { find: /^gyre\/fleet-support$/, replacement: src("./packages/cli/src/fleet-support.ts") },
    ],
  },
  test: {
    reporters: ["default", "./scripts/summary-reporter.ts"],
    pool: "forks",
    // Two workers more than the cores, for the projects that run together (unit, unit-isolated, e2e
    // and slow; Vitest wants one count per group): an e2e file spends much of its time waiting on the
    // processes it drives (timeouts it tests, a model that answers slowly), so the other files fill
    // the gaps. On 2 cores, 3 workers left the cores 10-40 % idle for a minute of the run; 4 brought
    // `npm test` from 298 to 272-283 s. Vitest's default (cores minus one) ran the e2e files one at a time.
    maxWorkers: Math.max(2, availableParallelism() + 2),
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: unit,
          exclude: [...ownProcessTests, "**/*.slow.test.ts", "**/node_modules/**"],
          setupFiles: ["./scripts/vitest-unit-setup.ts"],
          testTimeout: 10_000,
          hookTimeout: 10_000,
          // Threads sharing one module graph: most of the layer's time was spent loading the same
          // modules again for each file. A file that needs a process of its own goes in ownProcessTests.
          pool: "threads",
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "unit-isolated",
          include: ownProcessTests,
          setupFiles: ["./scripts/vitest-unit-setup.ts"],
          testTimeout: 10_000,
          hookTimeout: 10_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: every,
          exclude: [...unit, ...ownProcessTests, ...slow, "**/node_modules/**"],
          globalSetup: ["./scripts/vitest-global-setup.ts"],
          testTimeout: 20_000,
          // A worker process runs file after file without starting afresh: a fork per file cost
          // about 0.3 s of CPU each (140 files). The files change no process-wide state; a
          // helper module they share registers its clean-up per test, not at import.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "slow",
          // Beside unit and e2e, with the same workers: a fleet file waits on its Redis and
          // workers part of the time, and the other files fill it.
          include: slow,
          exclude: [...install, "**/node_modules/**"],
          globalSetup: ["./scripts/vitest-global-setup.ts"],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: "install",
          include: install,
          globalSetup: ["./scripts/vitest-global-setup.ts"],
          testTimeout: 20_000,
          // After the layers when a plain `vitest run` takes every project.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
