/**
 * `gyre doctor`'s checks of the installation (docs/cli.md, "gyre doctor"): Node against the
 * version gyre needs, bubblewrap actually confining a command, git, ripgrep, which provider keys
 * are set (names only), and every configured MCP server connected for real with a short timeout.
 * Each check is one line: ok, warn or fail, and for the last two a sentence saying what to do.
 */

import { execFile } from "node:child_process";
import { getProviders } from "@gyre/ai";
import { rgPath } from "@vscode/ripgrep";
import { readAuthFile } from "../../core/auth/auth-store.js";
import { loadModelsConfig } from "../../core/config/models-config.js";
import { findExecutable, probeSandbox } from "../../core/sandbox/probe-sandbox.js";

export type CheckStatus = "ok" | "warn" | "fail";
export type DoctorCheck = { name: string; status: CheckStatus; detail: string; fix?: string };

/** The oldest Node gyre runs on: the `engines` field of the package (a test keeps them equal). */
export const REQUIRED_NODE = "20.3.0";

/** Whether `version` (x.y.z) is at least `required`. */
export function atLeast(version: string, required: string): boolean {
  const have = version.replace(/^v/, "").split(".").map(Number);
  const need = required.split(".").map(Number);
  for (let index = 0; index < need.length; index++) {
    const a = have[index] ?? 0;
    const b = need[index] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export function checkNode(version: string = process.versions.node): DoctorCheck {
  if (atLeast(version, REQUIRED_NODE))
    return { name: "node", status: "ok", detail: `${version} (gyre needs ${REQUIRED_NODE} or newer)` };
  return {
    name: "node",
    status: "fail",
    detail: `${version} is older than the ${REQUIRED_NODE} gyre needs`,
    fix: `install Node ${REQUIRED_NODE} or newer (https://nodejs.org, or your version manager) and run gyre with it.`,
  };
}

/** Starts bwrap the way a sandboxed bash call does (`--ro-bind / / … true`, user namespaces included). */
export async function checkSandbox(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const probe = await probeSandbox(env);
  if (probe.available)
    return { name: "sandbox", status: "ok", detail: `${probe.bwrapPath} confines commands (user namespaces work)` };
  return { name: "sandbox", status: "fail", detail: probe.cause, fix: `${capitalise(probe.fix)}.` };
}

export async function checkGit(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const git = await findExecutable("git", env.PATH);
  const ran = git ? await runVersion(git, ["--version"], env) : undefined;
  if (git && ran?.ok) return { name: "git", status: "ok", detail: ran.output };
  return {
    name: "git",
    status: "warn",
    detail: git ? `${git} --version failed (${ran?.output})` : "git is not on PATH",
    fix: "Install git (Debian/Ubuntu: apt-get install git): without it there are no checkpoints, so /rewind restores the conversation only.",
  };
}

export async function checkRipgrep(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const ran = await runVersion(rgPath, ["--version"], env);
  if (ran.ok) return { name: "ripgrep", status: "ok", detail: `${ran.output.split("\n")[0]} (${rgPath})` };
  return {
    name: "ripgrep",
    status: "fail",
    detail: `the rg that @vscode/ripgrep ships does not run (${ran.output})`,
    fix: "Reinstall gyre so @vscode/ripgrep brings its binary for this platform (npm install -g gyre); grep and find need it.",
  };
}

/** Which providers' key variables are set: names only, never values. */
export async function checkProviderKeys(env: NodeJS.ProcessEnv, gyreHome: string): Promise<DoctorCheck[]> {
  const names = new Set(getProviders().flatMap((provider) => (provider.apiKeyEnv ? [provider.apiKeyEnv] : [])));
  const checks: DoctorCheck[] = [];
  try {
    const { providers, warnings } = await loadModelsConfig(gyreHome);
    for (const custom of providers) if (custom.info.apiKeyEnv) names.add(custom.info.apiKeyEnv);
    for (const warning of warnings)
      checks.push({ name: "models.json", status: "warn", detail: warning, fix: "Correct or remove the field." });
  } catch (error) {
    checks.push({
      name: "models.json",
      status: "fail",
      detail: (error as Error).message,
      fix: "Correct $GYRE_HOME/models.json (gyre --list-models shows what it gives) or move it away.",
    });
  }
  const found = [...names].filter((name) => (env[name] ?? "").trim() !== "").sort();
  const missing = [...names].filter((name) => !found.includes(name)).sort();
  checks.unshift(
    found.length > 0
      ? {
          name: "keys",
          status: "ok",
          detail: `found ${found.join(", ")}${missing.length > 0 ? `; not set: ${missing.join(", ")}` : ""}`,
        }
      : {
          name: "keys",
          status: "warn",
          detail: `no provider key is set (looked for ${missing.join(", ")})`,
          fix: "Export one (for example ANTHROPIC_API_KEY) or pass --api-key-file; local servers (--provider ollama or llamacpp) need none.",
        },
  );
  checks.splice(1, 0, await checkSignIns(gyreHome));
  return checks;
}

/** Which plan sign-ins (gyre login) are stored, by provider name only; a damaged auth.json fails. */
async function checkSignIns(gyreHome: string): Promise<DoctorCheck> {
  try {
    const stored = Object.keys(await readAuthFile(gyreHome)).sort();
    return {
      name: "sign-in",
      status: "ok",
      detail:
        stored.length > 0 ? `signed in to ${stored.join(", ")}` : "none (gyre login github-copilot or openai-codex)",
    };
  } catch (error) {
    return {
      name: "sign-in",
      status: "fail",
      detail: (error as Error).message,
      fix: "Fix or delete $GYRE_HOME/auth.json, then gyre login again.",
    };
  }
}

/** Runs `command args` for its version line; bounded, never throws. */
function runVersion(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 5_000, env }, (error, stdout, stderr) => {
      const output = (error ? stderr.trim() || error.message : stdout.trim()).split("\n")[0] ?? "";
      resolve({ ok: !error, output });
    });
  });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
