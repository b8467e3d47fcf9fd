import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.mjs";
import { cliEnv, createWorkspace, gyreBin } from "../helpers/run-cli.js";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Whether `pid` still runs (a zombie waiting for its reaper counts as ended). */
async function running(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return status !== "" && !/^State:\s+Z/m.test(status);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a host command of a gyre that is killed", () => {
  it.skipIf(!existsSync("/usr/bin/setpriv"))(
    "ends with it under --sandbox off instead of running on as an orphan",
    async () => {
      const { cwd, home } = await createWorkspace();
      server = await startFakeModelServer({
        respond: () => ({ toolCalls: [{ name: "bash", arguments: { command: "echo $$ > pid.txt; exec sleep 120" } }] }),
      });
      const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-test" });
      const args = [gyreBin, "--provider", "openai", "--model", "gpt-4o", "--sandbox", "off", "-p", "go"];
      const child = spawn(process.execPath, args, { cwd, env, stdio: "ignore" });
      const pidFile = join(cwd, "pid.txt");
      for (let tries = 0; tries < 300 && !existsSync(pidFile); tries++) await sleep(50);
      await sleep(200);
      const pid = Number((await readFile(pidFile, "utf8")).trim());
      expect(await running(pid)).toBe(true);
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("close", resolve));
      for (let tries = 0; tries < 40 && (await running(pid)); tries++) await sleep(50);
      const survived = await running(pid);
      if (survived) process.kill(pid, "SIGKILL");
      expect(survived).toBe(false);
    },
    30_000,
  );
});
