/**
 * One long-lived sandbox per session: bwrap is started once (lazily, on the first command) with a
 * small supervisor inside, and every command is a request to it. That keeps the per-call cost near
 * a bare `bash -c` instead of a bwrap start (~65 ms) per call, while each call still gets its own
 * process group, cwd and environment. Ending the session (or gyre) ends every process inside.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmdirSync, rmSync } from "node:fs";
import { rmdir } from "node:fs/promises";
import { PassThrough } from "node:stream";
import type { LaunchedCommand, LaunchRequest } from "../tools/run-command.js";
import { type BwrapPlan, buildBwrapArgs } from "./bwrap-args.js";
import { type DomainProxy, PROXY_SOCKET_NAME, startDomainProxy } from "./domain-proxy.js";
import { createGitGuard, type GitGuard } from "./git-guard.js";
import { createPidsCgroup, type PidsCgroup } from "./pids-cgroup.js";
import { SUPERVISOR_SOURCE } from "./supervisor-source.js";
import type { SandboxPolicy } from "./types.js";

type SupervisorMessage =
  | { t: "ready"; proxyPort?: number }
  | { t: "out"; id: number; d: string }
  | { t: "eof"; id: number }
  | { t: "exit"; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { t: "killed"; id: number; signal: "SIGTERM" | "SIGKILL"; survivors: boolean }
  | { t: "error"; id: number; message: string };

type Pending = {
  output: PassThrough;
  exit: (value: { code: number | null; signal: NodeJS.Signals | null }) => void;
  fail: (error: Error) => void;
  killed?: (value: { signal: "SIGTERM" | "SIGKILL"; survivors: boolean }) => void;
};

type Running = {
  child: ChildProcess;
  plan: BwrapPlan;
  cgroup: PidsCgroup | undefined;
  /** Renames any `.git` a command planted in the writable roots. */
  guard: GitGuard;
  pending: Map<number, Pending>;
  /** The filtering proxy for `allowedDomains` and the port its bridge listens on inside. */
  proxy: { server: DomainProxy; env: NodeJS.ProcessEnv } | undefined;
  /** Removes the created mount points if gyre exits without disposing (bwrap dies with it). */
  onProcessExit: () => void;
};

export type SessionSandbox = {
  /** Starts a command inside the sandbox (starting the sandbox first if needed). */
  launch(request: LaunchRequest): LaunchedCommand;
  /** The mount plan, once the sandbox has started. */
  plan(): Promise<BwrapPlan>;
  /** The `allowedDomains` proxy (started with the sandbox), or undefined when there is none. */
  proxy(): Promise<DomainProxy | undefined>;
  /**
   * Run after each command: undoes what the mounts cannot prevent (a new `.git` in the workspace,
   * see `git-guard.ts`); returns a sentence for the model, or undefined when nothing was found.
   */
  afterCommand(): Promise<string | undefined>;
  /** Ends the sandbox and every process in it; removes mount points it created. Idempotent. */
  dispose(): Promise<void>;
};

/** Creates the sandbox for `policy`, run by the bwrap at `bwrapPath`; nothing starts until the first launch. */
export function createSessionSandbox(options: { policy: SandboxPolicy; bwrapPath: string }): SessionSandbox {
  let running: Promise<Running> | undefined;
  let nextId = 1;
  const start = () => {
    running ??= startSupervisor(options).then((state) => {
      state.child.once("exit", () => {
        running = undefined;
        void state.cgroup?.remove();
        // A sandbox that died on its own takes its proxy with it; the next command starts both anew.
        void state.proxy?.server.close();
        for (const pending of state.pending.values()) {
          pending.output.end("\n[the sandbox stopped while this command ran; it restarts with the next command]\n");
          pending.exit({ code: null, signal: "SIGKILL" });
        }
        state.pending.clear();
      });
      return state;
    });
    running.catch(() => {
      running = undefined;
    });
    return running;
  };

  const launch = (request: LaunchRequest): LaunchedCommand => {
    const id = nextId++;
    const output = new PassThrough();
    let state: Running | undefined;
    // Ended (timeout, abort) while the sandbox was still starting: never start it at all.
    let cancelled = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((exit, fail) => {
      start().then((started) => {
        if (cancelled) {
          output.end();
          return exit({ code: null, signal: "SIGTERM" });
        }
        state = started;
        started.pending.set(id, { output, exit, fail });
        const env = started.proxy ? withProxyEnv(request.env, started.proxy.env) : request.env;
        write(started, { t: "run", id, ...request, env });
      }, fail);
    });
    return {
      streams: [output],
      exited,
      terminate: (graceMs) =>
        new Promise((done) => {
          const pending = state?.pending.get(id);
          if (!state) cancelled = true;
          if (!state || !pending) return done({ signal: "SIGTERM", survivors: false });
          pending.killed = done;
          write(state, { t: "kill", id, graceMs });
        }),
      release: () => {
        if (!state) return;
        state.pending.delete(id);
        if (state.child.exitCode === null) write(state, { t: "release", id });
      },
    };
  };

  return {
    launch,
    plan: async () => (await start()).plan,
    proxy: async () => (await start()).proxy?.server,
    afterCommand: async () => {
      const state = await running?.catch(() => undefined);
      return state?.guard.check();
    },
    dispose: async () => {
      const current = running;
      running = undefined;
      if (!current) return;
      const state = await current.catch(() => undefined);
      if (!state) return;
      await stopSupervisor(state);
      // Nothing runs inside any more: this last search sees everything the sandbox left behind.
      await state.guard.check();
    },
  };
}

function write(state: Running, message: object): void {
  if (state.child.stdin?.writable) state.child.stdin.write(`${JSON.stringify(message)}\n`);
}

async function stopSupervisor(state: Running): Promise<void> {
  const gone = new Promise<void>((done) => {
    if (state.child.exitCode !== null || state.child.signalCode !== null) done();
    else state.child.once("exit", () => done());
  });
  state.child.stdin?.end();
  const timer = setTimeout(() => state.child.kill("SIGKILL"), 2000);
  await gone;
  clearTimeout(timer);
  process.off("exit", state.onProcessExit);
  await state.cgroup?.remove();
  await state.proxy?.server.close();
  // Only the empty directories made as mount points; anything the user put there stays.
  for (const dir of state.plan.createdMountPoints.reverse()) await rmdir(dir).catch(() => undefined);
}

/** The synchronous teardown for process exit: the same removals as `stopSupervisor`. */
function removeMountPointsSync(plan: BwrapPlan): void {
  for (const dir of [...plan.createdMountPoints].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty or already gone: leave it.
    }
  }
}

/** Where the proxy's directory appears inside the sandbox (on its private /tmp). */
const PROXY_DIR_INSIDE = "/tmp/.gyre-proxy";

/** The proxy variables each command gets; NO_PROXY is dropped so nothing tries to go around it. */
function withProxyEnv(env: NodeJS.ProcessEnv, proxyEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NO_PROXY: _upper, no_proxy: _lower, ...rest } = env;
  return { ...rest, ...proxyEnv };
}

function proxyEnvFor(port: number): NodeJS.ProcessEnv {
  const url = `http://127.0.0.1:${port}`;
  // NODE_USE_ENV_PROXY: Node 24's fetch and http honour the variables only when asked to.
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NODE_USE_ENV_PROXY: "1" };
}

async function startProxy(policy: SandboxPolicy): Promise<DomainProxy | undefined> {
  if (policy.network || (policy.allowedDomains ?? []).length === 0) return undefined;
  return startDomainProxy(policy.allowedDomains ?? []);
}

async function startSupervisor(options: { policy: SandboxPolicy; bwrapPath: string }): Promise<Running> {
  const { policy } = options;
  const plan = await buildBwrapArgs(policy);
  const cgroup = await createPidsCgroup(policy.maxProcesses);
  const proxy = await startProxy(policy);
  // Limits are set by a shell before exec'ing the supervisor, so they bind every command and
  // cannot be raised from inside (hard and soft both; no CAP_SYS_RESOURCE in the sandbox).
  const limits = `ulimit -u ${policy.maxProcesses} 2>/dev/null; ulimit -d ${policy.maxMemoryMb * 1024}; exec "$0" -e "$1" "$2"`;
  const proxyMount = proxy ? ["--ro-bind", proxy.dir, PROXY_DIR_INSIDE] : [];
  const bridgeTo = proxy ? `${PROXY_DIR_INSIDE}/${PROXY_SOCKET_NAME}` : "";
  const inner = [
    ...plan.args,
    ...proxyMount,
    "--",
    "/bin/sh",
    "-c",
    limits,
    process.execPath,
    SUPERVISOR_SOURCE,
    bridgeTo,
  ];
  const [file, args] = cgroup
    ? ["/bin/sh", ["-c", 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, options.bwrapPath, ...inner]]
    : [options.bwrapPath, inner];
  const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], env: { PATH: policy.hostEnv.PATH ?? "" } });
  const onProcessExit = () => {
    removeMountPointsSync(plan);
    // gyre exits without having disposed the sandbox: end it now (bwrap would only follow gyre
    // once gyre is gone), so that its cgroup is empty and can go too.
    if (cgroup) {
      child.kill("SIGKILL");
      cgroup.removeSync(300);
    }
    if (proxy) rmSync(proxy.dir, { recursive: true, force: true });
  };
  process.once("exit", onProcessExit);
  const guard = createGitGuard({ roots: plan.writableRoots, baseline: plan.gitEntries ?? [] });
  const state: Running = { child, plan, cgroup, guard, pending: new Map(), onProcessExit, proxy: undefined };
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  await new Promise<void>((ready, fail) => {
    const onExit = (code: number | null) => {
      process.off("exit", onProcessExit);
      onProcessExit();
      void cgroup?.remove();
      void proxy?.close();
      fail(new Error(`The sandbox could not start (bwrap exited with ${code}): ${stderr.trim() || "no message"}`));
    };
    child.once("exit", onExit);
    child.once("error", (error) => fail(new Error(`The sandbox could not start: ${error.message}`)));
    readMessages(state, (proxyPort) => {
      child.off("exit", onExit);
      if (proxy && proxyPort) state.proxy = { server: proxy, env: proxyEnvFor(proxyPort) };
      // No bridge inside (it could not listen): commands just find no network, so drop the proxy.
      else if (proxy) void proxy.close();
      ready();
    });
  });
  return state;
}

function readMessages(state: Running, onReady: (proxyPort: number | undefined) => void): void {
  const stdout = state.child.stdout;
  if (!stdout) return;
  let buffer = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at !== -1; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      const message = JSON.parse(line) as SupervisorMessage;
      if (message.t === "ready") onReady(message.proxyPort);
      else dispatch(state, message);
    }
  });
}

function dispatch(state: Running, message: Exclude<SupervisorMessage, { t: "ready" }>): void {
  const pending = state.pending.get(message.id);
  if (!pending) return;
  switch (message.t) {
    case "out": {
      // Output for a command whose reader has gone (it stopped reading after the shell exited).
      if (pending.output.destroyed || pending.output.writableEnded) return;
      // Backpressure end to end: a slow reader here pauses the supervisor's pipe, which pauses the command.
      if (!pending.output.write(Buffer.from(message.d, "base64"))) {
        state.child.stdout?.pause();
        // Every command shares the pipe: a reader that goes away without draining must not stall the rest.
        const resume = () => {
          pending.output.off("drain", resume);
          pending.output.off("close", resume);
          state.child.stdout?.resume();
        };
        pending.output.once("drain", resume);
        pending.output.once("close", resume);
      }
      return;
    }
    case "eof":
      pending.output.end();
      return;
    case "exit":
      pending.exit({ code: message.code, signal: message.signal });
      return;
    case "killed":
      pending.killed?.({ signal: message.signal, survivors: message.survivors });
      return;
    case "error":
      pending.fail(new Error(message.message));
      return;
    default: {
      const never: never = message;
      throw new Error(`Unknown supervisor message ${JSON.stringify(never)}`);
    }
  }
}
