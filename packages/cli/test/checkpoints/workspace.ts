/** Helpers for checkpoint tests: a real project repository and a byte-exact picture of a tree. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Every path under `root` with its kind, permission bits and content (or link target), sorted. */
export function pictureOf(root: string, options: { skip?: readonly string[] } = {}): Record<string, string> {
  const picture: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      if (options.skip?.includes(path)) continue;
      const full = join(root, path);
      const info = lstatSync(full);
      const mode = (info.mode & 0o777).toString(8);
      if (info.isSymbolicLink()) picture[path] = `link ${readlinkSync(full)}`;
      else if (info.isDirectory()) walk(path);
      else picture[path] = `file ${mode} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
    }
  };
  walk("");
  return picture;
}

/** One hash over every byte, name, mode and mtime under `dir` (a `.git` must stay identical). */
export function hashDirectory(dir: string): string {
  const hash = createHash("sha256");
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const info = lstatSync(full);
      hash.update(`${full}\0${info.mode}\0${info.mtimeMs}\0${info.size}\0`);
      if (info.isDirectory()) walk(full);
      else if (info.isSymbolicLink()) hash.update(readlinkSync(full));
      else hash.update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest("hex");
}

/** Runs the user's git in `cwd` (a real project repository, with its own config). */
export function projectGit(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.safecrlf=false", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

/**
 * A project with what restores get wrong: CRLF, a BOM, an executable, a symlink, an ignored
 * file, and `.gitattributes` that would normalise line endings. Its `.git` holds hooks that
 * leave a marker in `markerDir` if any git ever runs them.
 */
export function createProject(root: string, markerDir: string): void {
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  writeFileSync(join(root, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
  writeFileSync(join(root, "bom.txt"), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]));
  writeFileSync(join(root, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  writeFileSync(join(root, "src", "main.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "src", "deep", "old-name.ts"), "renamed later\n");
  writeFileSync(join(root, "doomed.txt"), "to be deleted\n");
  writeFileSync(join(root, ".gitignore"), "ignored.log\n");
  writeFileSync(join(root, "ignored.log"), "never snapshotted\n");
  writeFileSync(join(root, ".gitattributes"), "* text=auto eol=lf\n");
  symlinkSync("src/main.ts", join(root, "link-to-main"));
  projectGit(root, ["init", "-q"]);
  projectGit(root, ["add", "-A"]);
  projectGit(root, ["commit", "-q", "-m", "initial"]);
  for (const hook of ["pre-commit", "post-commit", "post-index-change", "reference-transaction", "post-checkout"]) {
    writeFileSync(join(root, ".git", "hooks", hook), `#!/bin/sh\ntouch "${markerDir}/${hook}"\n`, { mode: 0o755 });
  }
}

/** A session line as the checkpoint tests look at it. */
export type SessionLine = {
  type: string;
  id?: string;
  parentId?: string | null;
  reason?: string;
  phase?: string;
  message?: { role: string; content?: unknown };
};

/** The only session file under `home`, parsed line by line. */
export async function readSessionLines(home: string): Promise<{ path: string; lines: SessionLine[] }> {
  const dir = join(home, "sessions");
  const [folder] = await readdir(dir);
  const [file] = (await readdir(join(dir, folder as string))).sort();
  const path = join(dir, folder as string, file as string);
  const text = await readFile(path, "utf8");
  return {
    path,
    lines: text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionLine),
  };
}

/** A PATH with every program of /usr/bin, /bin and node's own folder, but no git. */
export async function pathWithoutGit(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "gyre-nogit-bin-"));
  for (const source of ["/usr/bin", "/bin", dirname(process.execPath)])
    for (const name of await readdir(source).catch(() => [] as string[])) {
      if (name.startsWith("git")) continue;
      await symlink(join(source, name), join(dir, name)).catch(() => {});
    }
  return dir;
}
