import { access, mkdir, symlink, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFindTool } from "../../src/core/tools/find-tool.js";
import { createGrepTool } from "../../src/core/tools/grep-tool.js";
import { createLsTool } from "../../src/core/tools/ls-tool.js";
import { createTempDir, textOf, toolContext } from "./helpers.js";

describe("grep, find and ls tools", () => {
  let root: string;
  let dir: string;
  let cleanup: () => Promise<void>;
  const put = async (name: string, content: string) => {
    await mkdir(nodePath.dirname(nodePath.join(dir, name)), { recursive: true });
    await writeFile(nodePath.join(dir, name), content);
  };
  beforeEach(async () => {
    ({ dir: root, cleanup } = await createTempDir());
    dir = nodePath.join(root, "proj");
    await put("src/app.ts", "import x from 'y';\nconst Needle = 1;\nexport default Needle;\n");
    await put("src/util.ts", "// needle in lower case\n");
    await put("README.md", "Needle docs\n");
    await put(".gitignore", "build/\n*.log\n");
    await put("build/out.ts", "const Needle = 2;\n");
    await put("debug.log", "Needle\n");
    await put(".hidden/conf.ts", "Needle hidden\n");
    await put("../outside/secret.ts", "Needle outside\n");
  });
  afterEach(() => cleanup());

  it("grep finds matches with workspace-relative paths and respects .gitignore", async () => {
    const result = await createGrepTool({ cwd: dir }).execute({ pattern: "Needle" }, toolContext());
    const lines = textOf(result).split("\n").sort();
    expect(lines).toEqual([
      ".hidden/conf.ts:1: Needle hidden",
      "README.md:1: Needle docs",
      "src/app.ts:2: const Needle = 1;",
      "src/app.ts:3: export default Needle;",
    ]);
    expect(result.details).toMatchObject({ matchCount: 4, limitReached: false });
  });

  it("grep supports path, glob, ignoreCase, literal and context", async () => {
    const grep = createGrepTool({ cwd: dir });
    const inSrc = await grep.execute(
      { pattern: "needle", path: "src", ignoreCase: true, glob: "util*" },
      toolContext(),
    );
    expect(textOf(inSrc)).toBe("src/util.ts:1: // needle in lower case");
    const literal = await grep.execute({ pattern: "x from 'y'", literal: true, path: "src/app.ts" }, toolContext());
    expect(textOf(literal)).toBe("src/app.ts:1: import x from 'y';");
    const context = await grep.execute({ pattern: "const", path: "src/app.ts", context: 1 }, toolContext());
    expect(textOf(context)).toBe(
      "src/app.ts-1- import x from 'y';\nsrc/app.ts:2: const Needle = 1;\nsrc/app.ts-3- export default Needle;",
    );
  });

  it("grep applies name and path globs without un-ignoring .gitignored files", async () => {
    const grep = createGrepTool({ cwd: dir });
    expect(textOf(await grep.execute({ pattern: "Needle", glob: "*.log" }, toolContext()))).toMatch(/^No matches/);
    expect(textOf(await grep.execute({ pattern: "Needle", glob: "build/*.ts" }, toolContext()))).toMatch(/^No matches/);
    expect(textOf(await grep.execute({ pattern: "const", glob: "**/*.ts" }, toolContext()))).toBe(
      "src/app.ts:2: const Needle = 1;",
    );
    expect(textOf(await grep.execute({ pattern: "Needle", glob: "src/*.ts" }, toolContext()))).toBe(
      "src/app.ts:2: const Needle = 1;\nsrc/app.ts:3: export default Needle;",
    );
  });

  it("grep treats a pattern and a glob that look like flags as data", async () => {
    await put("x.sh", `#!/bin/sh\ntouch "${nodePath.join(root, "pwned")}"\ncat "$1"\n`);
    await put("notes.txt", "run with --pre=./x.sh please\n");
    const grep = createGrepTool({ cwd: dir });
    const result = await grep.execute({ pattern: "--pre=./x.sh" }, toolContext());
    expect(textOf(result)).toBe("notes.txt:1: run with --pre=./x.sh please");
    const viaGlob = await grep.execute({ pattern: "please", glob: "--pre=./x.sh" }, toolContext());
    expect(textOf(viaGlob)).toMatch(/^No matches/);
    await expect(access(nodePath.join(root, "pwned"))).rejects.toThrow();
  });

  it("grep stops at the limit and cuts long lines, with notices", async () => {
    await put(
      "many.txt",
      `${Array.from({ length: 50 }, (_, index) => `hit ${index}`).join("\n")}\n${"hit ".repeat(400)}\n`,
    );
    const grep = createGrepTool({ cwd: dir });
    const limited = textOf(await grep.execute({ pattern: "hit", path: "many.txt", limit: 10 }, toolContext()));
    expect(limited.split("\n").slice(0, 10)).toHaveLength(10);
    expect(limited).toContain("many.txt:10: hit 9\n\n[stopped at 10 matches; pass a larger limit");
    const long = textOf(await grep.execute({ pattern: "hit hit", path: "many.txt" }, toolContext()));
    expect(long).toContain(`many.txt:51: ${"hit ".repeat(125)}… [line cut]`);
    expect(long).toContain("lines longer than 500 characters were cut");
  });

  it("grep reports no matches, bad regexes and refused paths clearly", async () => {
    const grep = createGrepTool({ cwd: dir });
    expect(textOf(await grep.execute({ pattern: "zzz_absent" }, toolContext()))).toBe(
      'No matches for "zzz_absent" in ..',
    );
    await expect(grep.execute({ pattern: "foo(" }, toolContext())).rejects.toThrow(
      /not a valid regular expression[\s\S]*literal=true/,
    );
    await expect(grep.execute({ pattern: "Needle", path: "../outside" }, toolContext())).rejects.toThrow(
      /workspace policy/,
    );
  });

  it("grep is killed promptly when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      createGrepTool({ cwd: dir }).execute({ pattern: "Needle" }, toolContext(controller.signal)),
    ).rejects.toThrow();
  });

  it("find lists matching files sorted, respecting .gitignore, with a limit notice", async () => {
    const find = createFindTool({ cwd: dir });
    expect(textOf(await find.execute({ pattern: "*.ts" }, toolContext()))).toBe(
      ".hidden/conf.ts\nsrc/app.ts\nsrc/util.ts",
    );
    expect(textOf(await find.execute({ pattern: "*.ts", path: "src" }, toolContext()))).toBe("src/app.ts\nsrc/util.ts");
    const limited = textOf(await find.execute({ pattern: "*", limit: 2 }, toolContext()));
    expect(limited).toBe(
      ".gitignore\n.hidden/conf.ts\n\n[2 of 5 files shown; pass a larger limit or a narrower pattern or path]",
    );
    expect(textOf(await find.execute({ pattern: "--pre=./x.sh" }, toolContext()))).toMatch(/^No files match/);
    expect(textOf(await find.execute({ pattern: "build/*" }, toolContext()))).toMatch(/^No files match/);
    expect(textOf(await find.execute({ pattern: "**/*.{md,log}" }, toolContext()))).toBe("README.md");
  });

  it("ls lists sorted entries, marks directories and includes dotfiles", async () => {
    await symlink(nodePath.join(dir, "src"), nodePath.join(dir, "src-link"));
    const ls = createLsTool({ cwd: dir });
    expect(textOf(await ls.execute({}, toolContext()))).toBe(
      ".gitignore\n.hidden/\nbuild/\ndebug.log\nREADME.md\nsrc/\nsrc-link/",
    );
    expect(textOf(await ls.execute({ limit: 2 }, toolContext()))).toBe(
      ".gitignore\n.hidden/\n\n[2 of 7 entries shown; pass limit=7 to see all, or use find]",
    );
    await expect(ls.execute({ path: "README.md" }, toolContext())).rejects.toThrow(/is a file.*Use read/);
    await expect(ls.execute({ path: "../outside" }, toolContext())).rejects.toThrow(/--allow-path/);
    const allowed = createLsTool({ cwd: dir, allowedPaths: [nodePath.join(root, "outside")] });
    expect(textOf(await allowed.execute({ path: "../outside" }, toolContext()))).toBe("secret.ts");
  });
});
