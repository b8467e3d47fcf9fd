/**
 * `@gyre/fleet`: gyre's job queue on Redis (BullMQ): `gyre worker|submit|jobs|job|eval|replay`
 * and a client to submit and follow jobs from a program. gyre loads it when one of those commands
 * runs (commands/load-fleet.ts in gyre); a plain gyre install has neither it nor bullmq and ioredis.
 * docs/fleet.md is the user's guide, docs/design/packages.md#the-fleet-package the layout.
 */
export { createFleetClient, type FleetClient, type JobInfo, type JobState } from "./fleet-client.js";
export { runFleetCommand } from "./fleet-commands.js";
export type { JobPayload } from "./job-payload.js";
export { sessionJournalsFromEnv } from "./session-store.js";
