// Command lines for gyre and Pi pointed at the same local fake model server, each with its own
// throw-away home so neither reads the real $HOME (Pi: ~/.pi/agent, gyre: ~/.gyre).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const GYRE_BIN = fileURLToPath(new URL("../../packages/cli/bin/gyre.js", import.meta.url));
export const MODEL_ID = "bench-model";

/** process.env without provider keys or proxies that could send a request anywhere but 127.0.0.1. */
function baseEnv(home) {
  const env = { ...process.env, HOME: home, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" };
  for (const key of Object.keys(env)) {
    if (/_API_KEY$|_BASE_URL$|^HTTPS?_PROXY$|^https?_proxy$|^ALL_PROXY$|^all_proxy$/.test(key)) delete env[key];
  }
  return env;
}

/**
 * Creates a workspace (with `small.txt` for read calls) and both tools' homes.
 * `serverUrl` is the fake server's origin, or undefined for commands that never call a model.
 * Returns `{ workspace, gyre(args), pi(args), cleanup() }`, where gyre/pi give `{ command, args, env, cwd }`;
 * `pi` is undefined when Pi is not installed (`piCli` missing). Both run on `node` (default: this Node).
 */
export function createAgents({ serverUrl, piCli, node = process.execPath }) {
  const root = mkdtempSync(join(tmpdir(), "gyre-bench-agents-"));
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  const gyreHome = join(root, "gyre-home");
  const piAgentDir = join(root, "pi-agent");
  for (const dir of [workspace, home, gyreHome, piAgentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(workspace, "small.txt"), "one small file\nwith two lines\n");
  // Pi finds custom OpenAI-compatible servers only through models.json; the compat flags keep it
  // from sending fields (developer role, reasoning_effort) that a plain server would not expect.
  const piModels = {
    providers: {
      bench: {
        baseUrl: `${serverUrl ?? "http://127.0.0.1:9"}/v1`,
        api: "openai-completions",
        apiKey: "bench",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: MODEL_ID, contextWindow: 1_000_000, maxTokens: 16_384 }],
      },
    },
  };
  writeFileSync(join(piAgentDir, "models.json"), JSON.stringify(piModels, null, 2));

  const gyreModelArgs = serverUrl
    ? ["--provider", "openai", "--model", MODEL_ID, "--base-url", `${serverUrl}/v1`, "--api-key", "bench"]
    : [];
  const gyre = (args, { model = true } = {}) => ({
    command: node,
    args: [GYRE_BIN, ...(model ? gyreModelArgs : []), ...args],
    env: { ...baseEnv(home), GYRE_HOME: gyreHome },
    cwd: workspace,
  });
  const pi = piCli
    ? (args, { model = true } = {}) => ({
        command: node,
        args: [piCli, ...(model ? ["--provider", "bench", "--model", MODEL_ID] : []), ...args],
        env: { ...baseEnv(home), PI_CODING_AGENT_DIR: piAgentDir, PI_OFFLINE: "1", PI_TELEMETRY: "0" },
        cwd: workspace,
      })
    : undefined;
  return { workspace, gyre, pi, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
