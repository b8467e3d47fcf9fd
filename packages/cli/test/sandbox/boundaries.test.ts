/**
 * The security boundaries of the reliability checklist (D1–D5, D8, D10–D14) against real
 * bubblewrap: every assertion runs a real command in a real sandbox.
 */
import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBwrapArgs } from "../../src/core/sandbox/bwrap-args.js";
import type { SessionSandbox } from "../../src/core/sandbox/session-sandbox.js";
import { createSafeEnv } from "../../src/core/tools/safe-env.js";
import { createWorkspace, policyFor, runIn, startSandbox, type Workspace } from "./helpers.js";

let workspace: Workspace;
let sandbox: SessionSandbox;

beforeAll(async () => {
  // Under /var/tmp, not /tmp: the sandbox gives /tmp a private tmpfs, which would hide "outside".
  workspace = await createWorkspace("/var/tmp");
  await mkdir(join(workspace.cwd, ".git", "hooks"), { recursive: true });
  await writeFile(join(workspace.cwd, ".git", "config"), "[core]\n");
  await writeFile(join(workspace.cwd, ".mcp.json"), "{}\n");
  await mkdir(join(workspace.gyreHome, "extensions"));
  sandbox = await startSandbox(policyFor(workspace));
});
afterAll(async () => {
  await sandbox.dispose();
  await workspace.cleanup();
});

const sh = (command: string) => runIn(sandbox, command, { cwd: workspace.cwd });

describe("the workspace-write sandbox", () => {
  it("refuses writes outside the workspace with Read-only file system (D1)", async () => {
    const result = await sh(`touch ${workspace.home}/outside; echo x > /etc/gyre-probe`);
    expect(result.output).toContain(`${workspace.home}/outside': Read-only file system`);
    expect(result.output).toContain("/etc/gyre-probe: Read-only file system");
    await expect(stat(join(workspace.home, "outside"))).rejects.toThrow();
  });

  it("allows writes inside the workspace and in a private /tmp (D2)", async () => {
    const result = await sh("echo made > made.txt && echo tmp > /tmp/t && cat /tmp/t");
    expect(result.code).toBe(0);
    expect(await readFile(join(workspace.cwd, "made.txt"), "utf8")).toBe("made\n");
    expect(await readdir("/tmp")).not.toContain("t");
  });

  it("refuses writes to .git/hooks, .git/config, .gyre/ and .mcp.json inside the workspace (D3)", async () => {
    for (const target of [".git/hooks/pre-commit", ".git/config", ".mcp.json", ".gyre/settings.json"]) {
      const result = await sh(`echo 'touch PWNED' > ${target}`);
      expect(result.output, target).toContain("Read-only file system");
    }
    const config = await sh("git config core.fsmonitor 'touch PWNED'");
    expect(config.code).not.toBe(0);
    expect(await readFile(join(workspace.cwd, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("refuses to create .gyre/settings.json when .gyre did not exist at start (D4)", async () => {
    const result = await sh("mkdir -p .gyre/extensions; echo '{}' > .gyre/settings.json; ls -A .gyre");
    expect(result.output).toContain("Read-only file system");
    expect(await readdir(join(workspace.cwd, ".gyre"))).toEqual([]);
  });

  it("refuses to replace the config dirs with a symlink to a decoy (D5)", async () => {
    const result = await sh(
      "mkdir -p decoy; rm -rf .gyre; mv .gyre gone; ln -sfn decoy .gyre; " +
        `rm -rf ${workspace.gyreHome}/extensions; ln -s ${workspace.cwd}/decoy ${workspace.gyreHome}/ext2; echo done`,
    );
    expect(result.output).toContain("done");
    expect((await stat(join(workspace.cwd, ".gyre"))).isDirectory()).toBe(true);
    expect(await readdir(join(workspace.cwd, ".gyre"))).toEqual([]);
    expect(await readdir(workspace.gyreHome)).toEqual(["extensions"]);
  });

  it("does not help a write through a symlink that points into a protected path", async () => {
    const result = await sh("ln -sf .git/config link && echo evil >> link; cat .git/config");
    expect(result.output).toContain("Read-only file system");
    expect(await readFile(join(workspace.cwd, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("keeps the writable roots when the command changes directory to / (D14)", async () => {
    const result = await runIn(sandbox, "cd / && touch /rooted; cd .. ; touch ../up 2>&1; pwd", { cwd: "/" });
    expect(result.output).toContain("/rooted': Read-only file system");
    expect(result.output).toContain("Read-only file system");
  });

  it("runs with NoNewPrivs 1 and no capabilities (D11)", async () => {
    const result = await sh("grep -E 'NoNewPrivs|CapEff' /proc/self/status");
    expect(result.output).toMatch(/NoNewPrivs:\s+1/);
    expect(result.output).toMatch(/CapEff:\s+0{16}/);
  });

  it("cannot see or signal host processes (D12)", async () => {
    const result = await sh(`ps -e -o pid= | wc -l; kill -0 ${process.pid} 2>&1 || echo cannot-signal`);
    const count = Number(result.output.trim().split("\n")[0]);
    expect(count).toBeLessThan(10);
    expect(result.output).toContain("cannot-signal");
  });

  it("cannot read gyre's own environment through /proc", async () => {
    const secret = "sk-gyre-test-0123456789";
    const env = createSafeEnv({ ...process.env, OPENAI_API_KEY: secret, DATABASE_URL: `postgres://u:${secret}@h/db` });
    const result = await runIn(
      sandbox,
      "tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ; env; echo end",
      { cwd: workspace.cwd, env },
    );
    expect(result.output).toContain("end");
    expect(result.output).not.toContain(secret);
    expect(result.output).not.toContain("DATABASE_URL");
  });

  it("gives each call its own cwd and environment", async () => {
    await sh("export LEAK=1; cd /tmp");
    const result = await runIn(sandbox, 'pwd; echo "leak=[$LEAK] own=$OWN"', {
      cwd: workspace.cwd,
      env: { PATH: process.env.PATH, OWN: "yes" },
    });
    expect(result.output).toBe(`${workspace.cwd}\nleak=[] own=yes\n`);
  });
});

describe("networking off", () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => response.end("reached"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const address = server.address();
    port = typeof address === "object" && address ? address.port : 0;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("stops curl, wget, bash /dev/tcp, python sockets and DNS (D8)", async () => {
    const url = `http://127.0.0.1:${port}/`;
    const result = await sh(
      [
        `curl -sS --max-time 3 ${url} || echo curl-failed`,
        `wget -q -T 3 -O - ${url} || echo wget-failed`,
        `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null || echo tcp-failed`,
        `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${port}), 3)' 2>/dev/null || echo python-failed`,
        "getent hosts registry.npmjs.org || echo dns-failed",
      ].join("; "),
    );
    expect(result.output).not.toContain("reached");
    for (const marker of ["curl-failed", "wget-failed", "tcp-failed", "python-failed", "dns-failed"]) {
      expect(result.output).toContain(marker);
    }
  });

  it("lets the same server be reached when networking is allowed", async () => {
    const open = await startSandbox(policyFor(workspace, { network: true }));
    try {
      const result = await runIn(open, `curl -sS --max-time 3 http://127.0.0.1:${port}/`, { cwd: workspace.cwd });
      expect(result.output).toBe("reached");
    } finally {
      await open.dispose();
    }
  });
});

describe("host sockets", () => {
  it("cannot reach $SSH_AUTH_SOCK or a DOCKER_HOST socket, even outside /tmp (D10)", async () => {
    const { createServer: createNetServer } = await import("node:net");
    const dir = await import("node:fs/promises").then((fs) => fs.mkdtemp("/var/tmp/gyre-sockets-"));
    const servers = ["agent.sock", "docker.sock"].map((name) => {
      const server = createNetServer((socket) => socket.end("answered\n"));
      server.listen(join(dir, name));
      return server;
    });
    const hostEnv = {
      PATH: process.env.PATH,
      SSH_AUTH_SOCK: join(dir, "agent.sock"),
      DOCKER_HOST: `unix://${dir}/docker.sock`,
    };
    const probe = (path: string) =>
      `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect("${path}"); print(s.recv(20).decode())' 2>&1 || echo blocked`;
    const open = await startSandbox(policyFor(workspace, { hostEnv, network: true }));
    try {
      const result = await runIn(open, `${probe(join(dir, "agent.sock"))}; ${probe(join(dir, "docker.sock"))}`, {
        cwd: workspace.cwd,
      });
      expect(result.output).not.toContain("answered");
      expect(result.output.match(/blocked/g)).toHaveLength(2);
    } finally {
      await open.dispose();
      for (const server of servers) server.close();
      await import("node:fs/promises").then((fs) => fs.rm(dir, { recursive: true, force: true }));
    }
  });
});

describe("read masks", () => {
  it("masks denyRead files and directories", async () => {
    await mkdir(join(workspace.home, ".ssh-test"), { recursive: true });
    await writeFile(join(workspace.home, ".ssh-test", "id_rsa"), "PRIVATE");
    await writeFile(join(workspace.cwd, ".env"), "SECRET=1");
    await symlink(join(workspace.home, ".ssh-test", "id_rsa"), join(workspace.cwd, "key-link"));
    const masked = await startSandbox(policyFor(workspace, { denyRead: ["~/.ssh-test", ".env"] }));
    try {
      const result = await runIn(masked, "cat ~/.ssh-test/id_rsa key-link .env; ls -A ~/.ssh-test; echo end", {
        cwd: workspace.cwd,
        env: { PATH: process.env.PATH, HOME: workspace.home },
      });
      expect(result.output).not.toContain("PRIVATE");
      expect(result.output).not.toContain("SECRET");
      expect(result.output).toContain("end");
    } finally {
      await masked.dispose();
    }
  });
});

describe("two sessions in one folder", () => {
  it("starts a sandbox whose empty .gyre another session removed after the plan, and keeps .gyre read-only", async () => {
    const shared = await createWorkspace("/var/tmp");
    try {
      // Another session made .gyre as its mount point; this one plans while it exists, then the
      // other leaves and removes it before this sandbox's bwrap starts.
      await mkdir(join(shared.cwd, ".gyre"));
      const plan = await buildBwrapArgs(policyFor(shared));
      await rmdir(join(shared.cwd, ".gyre"));
      const run = spawnSync("bwrap", [...plan.args, "--", "/bin/sh", "-c", "touch .gyre/x; echo started"], {
        encoding: "utf8",
      });
      expect(run.stderr).toContain("Read-only file system");
      expect(run.stdout).toContain("started");
    } finally {
      await shared.cleanup();
    }
  });
});
