import { execFile } from "node:child_process";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parsePackageSource } from "../../src/core/packages/package-source.js";
import { installPackage, packagesRoot } from "../../src/core/packages/package-store.js";
import { fingerprintProject } from "../../src/core/project-fingerprint.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const run = promisify(execFile);

/** The test env: temp home, and npm kept off the network (offline: only local sources resolve). */
const env = (home: string) => cliEnv(home, { npm_config_offline: "true", npm_config_update_notifier: "false" });

/** A package folder with an extension that uses a dependency, a skill, a prompt and an install script. */
async function writePackage(dir: string, options: { version: string; dependency?: string }): Promise<void> {
  await mkdir(join(dir, "skills", "greeter"), { recursive: true });
  await mkdir(join(dir, "prompts"), { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "gyre-pkg-hello",
      version: options.version,
      type: "module",
      scripts: { postinstall: "node -e \"require('fs').writeFileSync('SCRIPT-RAN', 'yes')\"" },
      gyre: { extensions: ["./ext.mjs"] },
      ...(options.dependency ? { dependencies: { "gyre-pkg-dep": `file:${options.dependency}` } } : {}),
    }),
  );
  const greet = options.dependency
    ? `import { greet } from "gyre-pkg-dep";`
    : `const greet = (who) => "hello, " + who + " v${options.version}";`;
  await writeFile(
    join(dir, "ext.mjs"),
    `${greet}\nexport default (api) => api.registerCommand("hello", { handler: (args, ctx) => ctx.ui.notify(greet(args)) });\n`,
  );
  await writeFile(
    join(dir, "skills", "greeter", "SKILL.md"),
    "---\nname: greeter\ndescription: Greets people.\n---\nSay hello warmly.\n",
  );
  await writeFile(join(dir, "prompts", "review.md"), "---\ndescription: Review a file\n---\nReview $1 carefully.\n");
}

async function writeDependency(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "gyre-pkg-dep", version: "2.0.0", type: "module", main: "index.js" }),
  );
  await writeFile(join(dir, "index.js"), 'export const greet = (who) => "hello, " + who + " (from the dependency)";\n');
}

async function userMessage(cwd: string, home: string, prompt: string): Promise<unknown> {
  const script = join(home, "s.json");
  await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
  const result = await runCli(["--mode", "json", "--provider", "faux", "--faux-script", script, "-p", prompt], {
    cwd,
    env: env(home),
  });
  const events = result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } });
  return events.find((event) => event.type === "message_start" && event.message?.role === "user")?.message?.content;
}

describe("gyre install, list, remove, update", () => {
  it("installs an npm-packed tarball with its dependency, without its install script, and loads what it brings", async () => {
    const { cwd, home } = await createWorkspace();
    const source = join(home, "src");
    await writeDependency(join(home, "dep"));
    await writePackage(source, { version: "1.0.0", dependency: join(home, "dep") });
    const packed = await run("npm", ["pack", "--pack-destination", home], { cwd: source, env: env(home) });
    const tarball = join(home, packed.stdout.trim().split("\n").at(-1) ?? "");

    const installed = await runCli(["install", `npm:${tarball}`], { cwd, env: env(home) });
    expect(installed.stderr).toBe("");
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain("Installed gyre-pkg-hello 1.0.0");
    const dir = join(home, "packages", "node_modules", "gyre-pkg-hello");
    await expect(stat(join(dir, "SCRIPT-RAN"))).rejects.toThrow(/ENOENT/);
    expect(await readdir(join(home, "packages", "node_modules"))).toContain("gyre-pkg-dep");

    const listed = await runCli(["list"], { cwd, env: env(home) });
    expect(listed.stdout).toMatch(/gyre-pkg-hello 1\.0\.0 .*1 extension, 1 skill folder, 1 prompt folder/);
    // The tarball's path, not npm's file:../… relative to the packages folder.
    expect(listed.stdout).toContain(`gyre-pkg-hello 1.0.0  ${tarball}  (`);

    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
    const command = await runCli(["-p", "--provider", "faux", "--faux-script", script, "/hello world"], {
      cwd,
      env: env(home),
    });
    expect(command.stderr).toContain("hello, world (from the dependency)");
    expect(await userMessage(cwd, home, "/review main.ts")).toBe("Review main.ts carefully.");
    expect(String(await userMessage(cwd, home, "/skill:greeter hi"))).toContain("Say hello warmly.");

    const removed = await runCli(["remove", "gyre-pkg-hello"], { cwd, env: env(home) });
    expect(removed.code).toBe(0);
    expect((await runCli(["list"], { cwd, env: env(home) })).stdout).toContain("No packages installed");
    expect(await userMessage(cwd, home, "/review main.ts")).toBe("/review main.ts");
  }, 120_000);

  it("installs from a local git repository at a ref, and updates a branch install to its newest commit", async () => {
    const { cwd, home } = await createWorkspace();
    const repo = join(home, "repo");
    await writePackage(repo, { version: "1.0.0" });
    const git = (...args: string[]) =>
      run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo, env: env(home) });
    await git("init", "-q", "-b", "main");
    await git("add", ".");
    await git("commit", "-qm", "v1");
    await git("tag", "v1");
    await writePackage(repo, { version: "1.1.0" });
    await git("commit", "-qam", "v1.1");

    const pinned = await runCli(["install", `git:file://${repo}@v1`], { cwd, env: env(home) });
    expect(pinned.stderr).toBe("");
    expect(pinned.stdout).toContain("Installed gyre-pkg-hello 1.0.0");
    const script = join(home, "s.json");
    await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "ok" }] }]));
    const hello = await runCli(["-p", "--provider", "faux", "--faux-script", script, "/hello you"], {
      cwd,
      env: env(home),
    });
    expect(hello.stderr).toContain("hello, you v1.0.0");

    await runCli(["remove", "gyre-pkg-hello"], { cwd, env: env(home) });
    const branch = await runCli(["install", `git:file://${repo}@main`], { cwd, env: env(home) });
    expect(branch.stdout).toContain("Installed gyre-pkg-hello 1.1.0");
    await writePackage(repo, { version: "1.2.0" });
    await git("commit", "-qam", "v1.2");
    const updated = await runCli(["update"], { cwd, env: env(home) });
    expect(updated.stderr).toBe("");
    expect(updated.stdout).toContain("gyre-pkg-hello 1.1.0 → 1.2.0");
  }, 120_000);

  it("refuses a project install in an untrusted folder, and the trust fingerprint covers installed package files", async () => {
    const { cwd, home } = await createWorkspace();
    const source = join(home, "src");
    await writePackage(source, { version: "1.0.0" });
    const refused = await runCli(["install", "--project", source], { cwd, env: env(home) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is not trusted");
    await expect(stat(join(cwd, ".gyre", "packages"))).rejects.toThrow(/ENOENT/);

    const before = await fingerprintProject({ cwd, gyreHome: home, contextFiles: [] });
    const installed = await installPackage({
      root: packagesRoot({ project: cwd }),
      source: parsePackageSource(source, cwd),
      env: env(home),
    });
    const after = await fingerprintProject({ cwd, gyreHome: home, contextFiles: [] });
    expect(after).not.toBe(before);
    await writeFile(join(installed.dir, "ext.mjs"), "export default () => {};\n");
    expect(await fingerprintProject({ cwd, gyreHome: home, contextFiles: [] })).not.toBe(after);
  }, 120_000);

  it("installs the sources the packages setting lists when given none, once", async () => {
    const { cwd, home } = await createWorkspace();
    const source = join(home, "src");
    await writePackage(source, { version: "1.0.0" });
    await writeFile(join(home, "settings.json"), JSON.stringify({ packages: [source] }));
    const first = await runCli(["install"], { cwd, env: env(home) });
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("Installed gyre-pkg-hello 1.0.0");
    const again = await runCli(["install"], { cwd, env: env(home) });
    expect(again.stdout).toContain("Nothing to install");
  }, 120_000);

  it("explains a source it cannot use", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["install", "left-pad"], { cwd, env: env(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "is not a package source; use npm:<name>[@version], git:<url>[@ref] or a local path",
    );
  });
});
