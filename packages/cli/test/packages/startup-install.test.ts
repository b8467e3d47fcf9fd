/**
 * Packages the `packages` setting names are installed at start-up (core/packages/startup-install.ts),
 * from a packed tarball and a local git repository, with npm kept offline: nothing leaves the machine.
 */
import { execFile } from "node:child_process";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { isSourceInstalled, packagesRoot } from "../../src/core/packages/package-store.js";
import { installMissingPackages } from "../../src/core/packages/startup-install.js";
import { cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

const run = promisify(execFile);
const env = (home: string) => cliEnv(home, { npm_config_offline: "true", npm_config_update_notifier: "false" });

/** A package whose extension answers `/greet <who>` with a notice naming `version`. */
async function writeGreeter(dir: string, version: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "gyre-pkg-greeter", version, type: "module", gyre: { extensions: ["./greet.mjs"] } }),
  );
  await writeFile(
    join(dir, "greet.mjs"),
    `export default (api) => api.registerCommand("greet", { handler: (args, ctx) => ctx.ui.notify("greetings, " + args + " from ${version}") });\n`,
  );
}

/** `gyre -p /greet world` on the faux model, in `cwd` with `home`; extra flags first. */
async function greet(cwd: string, home: string, flags: string[] = []) {
  const script = join(home, "s.json");
  await writeFile(script, JSON.stringify([{ content: [{ type: "text", text: "model answered" }] }]));
  return runCli([...flags, "-p", "--provider", "faux", "--faux-script", script, "/greet world"], {
    cwd,
    env: env(home),
  });
}

describe("packages from the packages setting at start-up", () => {
  it("installs a packed tarball from the user's settings and loads it in the same run, once", async () => {
    const { cwd, home } = await createWorkspace();
    await writeGreeter(join(home, "src"), "1.0.0");
    const packed = await run("npm", ["pack", "--pack-destination", home], { cwd: join(home, "src"), env: env(home) });
    const tarball = join(home, packed.stdout.trim().split("\n").at(-1) ?? "");
    await writeFile(join(home, "settings.json"), JSON.stringify({ packages: [`npm:${tarball}`] }));

    const first = await greet(cwd, home);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`Installing 1 package from the packages setting of your settings (npm:${tarball})`);
    expect(first.stderr).toContain(`Installed gyre-pkg-greeter 1.0.0 from the packages setting (npm:${tarball}).`);
    expect(first.stderr).toContain("greetings, world from 1.0.0");

    const second = await greet(cwd, home);
    expect(second.stderr).not.toContain("Install");
    expect(second.stderr).toContain("greetings, world from 1.0.0");
  }, 120_000);

  it("installs a trusted project's git source into .gyre/packages and loads it only once trusted again", async () => {
    const { cwd, home } = await createWorkspace();
    const repo = join(home, "repo");
    await writeGreeter(repo, "2.0.0");
    const git = (...args: string[]) =>
      run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo, env: env(home) });
    await git("init", "-q", "-b", "main");
    await git("add", ".");
    await git("commit", "-qm", "v2");
    await mkdir(join(cwd, ".gyre"), { recursive: true });
    await writeFile(join(cwd, ".gyre", "settings.json"), JSON.stringify({ packages: [`git:file://${repo}@main`] }));

    const untrusted = await greet(cwd, home);
    expect(untrusted.stderr).not.toContain("Install");
    await expect(stat(join(cwd, ".gyre", "packages"))).rejects.toThrow(/ENOENT/);

    const first = await greet(cwd, home, ["--trust"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("Installed gyre-pkg-greeter 2.0.0 into the project's .gyre/packages/");
    expect(first.stderr).toContain("it loads once you trust the folder again");
    expect(first.stderr).not.toContain("greetings, world");
    await stat(join(cwd, ".gyre", "packages", "node_modules", "gyre-pkg-greeter", "greet.mjs"));

    const trustedAgain = await greet(cwd, home, ["--trust"]);
    expect(trustedAgain.stderr).not.toContain("Install");
    expect(trustedAgain.stderr).toContain("greetings, world from 2.0.0");
  }, 120_000);

  it("says so when offline, answers the prompt anyway, and does not retry at the next start", async () => {
    const { cwd, home } = await createWorkspace();
    await writeFile(join(home, "settings.json"), JSON.stringify({ packages: ["npm:gyre-pkg-not-in-any-cache@1.0.0"] }));
    const started = Date.now();
    const first = await greet(cwd, home);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("model answered");
    expect(first.stderr).toMatch(
      /Could not install npm:gyre-pkg-not-in-any-cache@1\.0\.0 from the packages setting: npm install failed .*\(npm could not reach the registry: offline\?\)\. The run goes on without it; start-up tries again in an hour, gyre install now\./,
    );
    const second = await greet(cwd, home);
    expect(second.stdout).toContain("model answered");
    expect(second.stderr).not.toContain("install");
  }, 120_000);

  it("stops waiting at the deadline and lets the install finish in the background", async () => {
    const { home } = await createWorkspace();
    const source = join(home, "src");
    await writeGreeter(source, "3.0.0");
    const root = packagesRoot({ gyreHome: home });
    const notices = await installMissingPackages({
      scope: { kind: "user", root, sources: [source], baseDir: home },
      failuresFile: join(home, "package-install-failures.json"),
      env: env(home),
      deadline: Date.now(),
    });
    expect(notices).toEqual([expect.stringContaining("is taking long; it goes on in the background")]);
    const until = Date.now() + 60_000;
    while (!(await isSourceInstalled(root, source))) {
      if (Date.now() > until) throw new Error("the background install did not finish within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 90_000);
});
