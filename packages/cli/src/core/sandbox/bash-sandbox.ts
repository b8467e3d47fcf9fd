/**
 * What the bash tool asks before each command: where it may run. Holds the session's sandbox
 * (started on first use), the mode (switchable for plan mode), and the start-up probe. Never
 * falls back to running unconfined: when the sandbox cannot run, `prepare` says why and how to fix it.
 */
import { type Launcher, launchOnHost } from "../tools/run-command.js";
import { confineReadOnly, type ReadOnlyLaunch } from "./confine-read-only.js";
import { type DenialContext, explainDenial, explainProxyRefusals } from "./explain-denial.js";
import { probeSandbox } from "./probe-sandbox.js";
import { createSessionSandbox, type SessionSandbox } from "./session-sandbox.js";
import type { SandboxAvailability, SandboxMode, SandboxPolicy } from "./types.js";

export type PreparedLaunch =
  | {
      ok: true;
      launch: Launcher;
      explain: (output: string) => string | undefined;
      /** Run once the command has ended: what the sandbox undid after it, for the model. */
      afterCommand?: () => Promise<string | undefined>;
    }
  | { ok: false; error: string };

export type BashSandbox = {
  mode(): SandboxMode;
  /** Switches the mode for later commands (plan mode); the running sandbox restarts with the new mode. */
  setMode(mode: SandboxMode): Promise<void>;
  /** Whether the sandbox can run here; `undefined` under `off`. */
  availability(): Promise<SandboxAvailability | undefined>;
  /** The launcher for the next command, or why there is none. */
  prepare(): Promise<PreparedLaunch>;
  /**
   * How to start a program that only reads the workspace (a language server) in `cwd`: read-only
   * under bwrap (`confine-read-only.ts`); `undefined` under `off` (it runs unconfined, as the
   * user); an error sentence when the sandbox cannot run here. Like bash, never unconfined on its own.
   */
  confineReadOnly(
    cwd: string,
  ): Promise<{ ok: true; launch: ReadOnlyLaunch | undefined } | { ok: false; error: string }>;
  /** One line for headers and footers: "workspace-write, network off", "off", "unavailable: …". */
  describe(): Promise<string>;
  /** Ends the sandbox and everything running in it. */
  dispose(): Promise<void>;
};

export type BashSandboxOptions = { mode: SandboxMode; policy: Omit<SandboxPolicy, "mode"> };

/** Creates the bash tool's sandbox holder; probes lazily (once per process). */
export function createBashSandbox(options: BashSandboxOptions): BashSandbox {
  let mode = options.mode;
  let sandbox: SessionSandbox | undefined;
  const availability = () => (mode === "off" ? Promise.resolve(undefined) : probeSandbox(options.policy.hostEnv));

  const prepare = async (): Promise<PreparedLaunch> => {
    if (mode === "off") return { ok: true, launch: launchOnHost, explain: () => undefined };
    const probe = await probeSandbox(options.policy.hostEnv);
    if (!probe.available) {
      return {
        ok: false,
        error:
          `The command was not run: the ${mode} sandbox is unavailable because ${probe.cause}. ` +
          `Tell the user; to fix it, ${probe.fix}. gyre never runs commands unsandboxed on its own.`,
      };
    }
    const policy: SandboxPolicy = { ...options.policy, mode };
    sandbox ??= createSessionSandbox({ policy, bwrapPath: probe.bwrapPath });
    const current = sandbox;
    const plan = await current.plan().catch((error: Error) => error);
    if (plan instanceof Error) return { ok: false, error: `The command was not run: ${plan.message}` };
    const proxy = await current.proxy().catch(() => undefined);
    const context: DenialContext = {
      cwd: policy.cwd,
      writableRoots: plan.writableRoots,
      protectedPaths: plan.protectedPaths,
      network: policy.network,
      allowedDomains: proxy ? (policy.allowedDomains ?? []) : [],
    };
    // Refusals are counted from here: a command running at the same time may add to them (rare; they are named).
    const mark = proxy?.mark() ?? 0;
    const explain = (output: string) => {
      const hints = [explainProxyRefusals(proxy?.refusalsSince(mark) ?? []), explainDenial(output, context)];
      const text = hints.filter((hint) => hint !== undefined).join("\n");
      return text === "" ? undefined : text;
    };
    return { ok: true, launch: current.launch, explain, afterCommand: current.afterCommand };
  };

  return {
    mode: () => mode,
    setMode: async (next) => {
      if (next === mode) return;
      mode = next;
      const old = sandbox;
      sandbox = undefined;
      await old?.dispose();
    },
    availability,
    prepare,
    confineReadOnly: async (cwd) => {
      if (mode === "off") return { ok: true, launch: undefined };
      const probe = await probeSandbox(options.policy.hostEnv);
      if (!probe.available) {
        return {
          ok: false,
          error: `the ${mode} sandbox is unavailable because ${probe.cause}; to fix it, ${probe.fix}`,
        };
      }
      const launch = await confineReadOnly({ policy: options.policy, bwrapPath: probe.bwrapPath, cwd }).catch(
        (error: Error) => error,
      );
      if (launch instanceof Error) return { ok: false, error: `the sandbox could not be set up (${launch.message})` };
      return { ok: true, launch };
    },
    describe: async () => {
      if (mode === "off") return "off (bash runs unconfined)";
      const probe = await availability();
      if (probe && !probe.available) return `${mode} unavailable: ${probe.cause}`;
      return `${mode}, ${describeNetwork(options.policy)}`;
    },
    dispose: async () => {
      const old = sandbox;
      sandbox = undefined;
      await old?.dispose();
    },
  };
}

/** "network on", "network off", or "network: 2 allowed domains (proxy)". */
export function describeNetwork(policy: Pick<SandboxPolicy, "network" | "allowedDomains">): string {
  if (policy.network) return "network on";
  const count = policy.allowedDomains?.length ?? 0;
  if (count === 0) return "network off";
  return `network: ${count} allowed domain${count === 1 ? "" : "s"} (proxy)`;
}
