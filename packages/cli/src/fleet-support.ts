/**
 * What the fleet package (`@gyre/fleet`, packages/fleet) takes from gyre: the pieces of the CLI's
 * core a worker, a client and the evaluation need. Its own entry in gyre's bundle, sharing chunks
 * with the `gyre` command, so a worker's child and the fleet code in one process share one copy of
 * each (one CliError class, one session format). docs/design/packages.md#the-fleet-package says why the
 * fleet is a package of its own. Not a public API: it changes with gyre's version.
 */
export { describeUsageError } from "./commands/usage-error.js";
export { getGyreHome } from "./core/config/paths.js";
export { CliError } from "./core/errors.js";
export { createBashSandbox } from "./core/sandbox/bash-sandbox.js";
export type { SandboxMode } from "./core/sandbox/types.js";
export { createRedactor, type Redactor } from "./core/session/redact-secrets.js";
export type { SessionJournals } from "./core/session/session-journal.js";
export { SessionManager } from "./core/session/session-manager.js";
export { SESSION_FORMAT_VERSION } from "./core/session/types.js";
export { isTraceparent, traceparentForJob } from "./core/telemetry/telemetry-config.js";
export { createUnifiedDiff } from "./core/tools/diff.js";
export { runCommand } from "./core/tools/run-command.js";
export { createSafeEnv } from "./core/tools/safe-env.js";
export { barChart, escapeHtml, intervalChart, reportStyle } from "./report/svg-charts.js";
