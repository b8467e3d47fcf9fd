import { describe, expect, it } from "vitest";
import { subcommands } from "../../src/commands/index.js";
import { type CliResult, cliEnv, createWorkspace, runCli } from "../helpers/run-cli.js";

describe("the subcommand table", () => {
  it("gyre --help lists every subcommand of the table with its summary", async () => {
    const { cwd, home } = await createWorkspace();
    const result = await runCli(["--help"], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(0);
    for (const row of subcommands)
      expect(result.stdout).toMatch(new RegExp(`gyre ${row.name} +${escapeRegExp(row.summary)}`));
  });

  it("gyre <sub> --help prints that subcommand's usage and exits 0, for every row", async () => {
    const { cwd, home } = await createWorkspace();
    for (const [name, result] of await runEveryRow(["--help"], cwd, home)) {
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({ name, code: 0, stderr: "" });
      expect(result.stdout).toMatch(/^Usage:\n/);
      expect(result.stdout).toContain(`gyre ${name}`);
    }
    // -h after other words still asks for help; after `--` it is an argument.
    const late = await runCli(["job", "12", "-h"], { cwd, env: cliEnv(home) });
    expect(late.code).toBe(0);
    expect(late.stdout).toContain("gyre job <id>");
  }, 60_000);

  it("an unknown flag on a subcommand is exit 2 with one sentence on stderr, nothing on stdout", async () => {
    const { cwd, home } = await createWorkspace();
    for (const [name, result] of await runEveryRow(["--no-such-flag"], cwd, home)) {
      expect({ name, code: result.code, stdout: result.stdout }).toEqual({ name, code: 2, stdout: "" });
      const lines = result.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^gyre: .*--no-such-flag.*\.$/);
    }
  }, 60_000);
});

/** `gyre <row> ...args` for every row of the table, one after the other. */
async function runEveryRow(args: string[], cwd: string, home: string): Promise<[string, CliResult][]> {
  const results: [string, CliResult][] = [];
  for (const row of subcommands)
    results.push([row.name, await runCli([row.name, ...args], { cwd, env: cliEnv(home) })]);
  return results;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
