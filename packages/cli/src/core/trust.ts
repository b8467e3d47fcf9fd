import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** Trust decisions, remembered per canonical project path (with a fingerprint of its extension files). */
type TrustFile = { projects: Record<string, { trustedAt: string; fingerprint?: string }> };

function trustFilePath(gyreHome: string): string {
  return join(gyreHome, "trusted-projects.json");
}

async function readTrustFile(gyreHome: string): Promise<TrustFile> {
  try {
    const parsed = JSON.parse(await readFile(trustFilePath(gyreHome), "utf8")) as TrustFile;
    return parsed && typeof parsed.projects === "object" ? parsed : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

/** The canonical path trust is keyed by (symlinks resolved). */
export async function canonicalProjectPath(cwd: string): Promise<string> {
  try {
    return await realpath(cwd);
  } catch {
    return cwd;
  }
}

/**
 * Whether the project at `cwd` is trusted. When `fingerprint` is given (a hash of the project's
 * extension files), trust only holds while it matches what was trusted: changed files re-ask.
 */
export async function isProjectTrusted(options: {
  gyreHome: string;
  cwd: string;
  fingerprint?: string;
}): Promise<boolean> {
  const file = await readTrustFile(options.gyreHome);
  const record = file.projects[await canonicalProjectPath(options.cwd)];
  if (!record) return false;
  if (options.fingerprint !== undefined && record.fingerprint !== undefined)
    return record.fingerprint === options.fingerprint;
  return true;
}

/** Remembers that the user trusts the project at `cwd` (atomic write of the trust file). */
export async function trustProject(options: { gyreHome: string; cwd: string; fingerprint?: string }): Promise<void> {
  const file = await readTrustFile(options.gyreHome);
  file.projects[await canonicalProjectPath(options.cwd)] = {
    trustedAt: new Date().toISOString(),
    ...(options.fingerprint !== undefined ? { fingerprint: options.fingerprint } : {}),
  };
  const path = trustFilePath(options.gyreHome);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, path);
}
