import { homedir } from "node:os";
import { join } from "node:path";

/** `$GYRE_HOME`, or `~/.gyre`. */
export function getGyreHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.GYRE_HOME?.trim();
  return configured ? configured : join(homedir(), ".gyre");
}

/** Where sessions live under a gyre home. */
export function getSessionsDir(gyreHome: string): string {
  return join(gyreHome, "sessions");
}
