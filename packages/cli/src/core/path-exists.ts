import { access } from "node:fs/promises";

/** Whether something (file, folder, link target) exists at `path`. Never rejects: any error reads as absent. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
