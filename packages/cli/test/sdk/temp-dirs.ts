import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type TempDirs = { cwd: string; home: string; remove(): Promise<void> };

/** A workspace and a `GYRE_HOME` side by side in one fresh temp folder. */
export async function makeTempDirs(): Promise<TempDirs> {
  const root = await mkdtemp(join(tmpdir(), "gyre-sdk-test-"));
  const cwd = join(root, "work");
  const home = join(root, "home");
  await mkdir(cwd);
  await mkdir(home);
  return { cwd, home, remove: () => rm(root, { recursive: true, force: true }) };
}
