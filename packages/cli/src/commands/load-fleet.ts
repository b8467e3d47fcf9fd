/**
 * The fleet's commands live in the `@gyre/fleet` package (docs/design/packages.md#the-fleet-package):
 * a plain gyre install carries neither it nor bullmq and ioredis. This loads it, or says in one
 * sentence how to install it.
 */
import type { Writable } from "node:stream";
import { CliError } from "../core/errors.js";
import type { SessionJournals } from "../core/session/session-journal.js";

/** What gyre calls in the package (its index.ts exports these and more). */
export type FleetModule = {
  runFleetCommand(
    argv: readonly string[],
    io: { stdout: Writable; stderr: Writable; env: NodeJS.ProcessEnv; cwd: string },
  ): Promise<number>;
  sessionJournalsFromEnv(env: NodeJS.ProcessEnv): Promise<SessionJournals | undefined>;
};

/** A name, not a literal: the package is resolved where gyre is installed, never bundled into it. */
const fleetPackage = "@gyre/fleet";

export async function loadFleet(command: string): Promise<FleetModule> {
  try {
    return (await import(fleetPackage)) as FleetModule;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes("@gyre/fleet")) throw error;
    throw new CliError(
      "bad_usage",
      `gyre ${command} needs the fleet package: install it beside gyre (\`npm run pack\` in the gyre clone writes gyre-fleet-<version>.tgz; then \`npm install -g ./gyre-fleet-<version>.tgz\`), see docs/fleet.md.`,
    );
  }
}
