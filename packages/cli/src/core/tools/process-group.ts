/**
 * Ending a command's whole process group (`kill(-pgid)`), so background children started by the
 * command die with it, with SIGTERM first and SIGKILL after a grace period.
 */
import { readdir, readFile } from "node:fs/promises";
import { errorCode } from "./tool-fs.js";

/** Sends `signal` to every process of group `pgid`; false when the group is already gone. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

/**
 * Whether any live process remains in group `pgid`. Zombies do not count: where no init reaps
 * orphans (some containers), killed children linger as zombies and `kill(-pgid, 0)` still
 * succeeds, so on Linux the members' states are read from /proc.
 */
export async function isProcessGroupAlive(pgid: number): Promise<boolean> {
  if (!signalProcessGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

/** How a group was ended. */
export type Termination = { signal: "SIGTERM" | "SIGKILL"; survivors: boolean };

/**
 * Sends SIGTERM to the group, waits up to `graceMs` for it to die, then sends SIGKILL and waits a
 * little more. Resolves once no live member remains (or it gave up: `survivors`).
 */
export async function terminateProcessGroup(pgid: number, graceMs: number): Promise<Termination> {
  if (!signalProcessGroup(pgid, "SIGTERM")) return { signal: "SIGTERM", survivors: false };
  if (await waitForGroupExit(pgid, graceMs)) return { signal: "SIGTERM", survivors: false };
  signalProcessGroup(pgid, "SIGKILL");
  const gone = await waitForGroupExit(pgid, 2000);
  return { signal: "SIGKILL", survivors: !gone };
}

async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    if (!(await isProcessGroupAlive(pgid))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
}
