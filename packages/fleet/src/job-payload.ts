/**
 * A fleet job as it travels through the queue: what to run and with which limits, never a key.
 * Provider keys live with the workers (their environment); a job names a provider only.
 */
import { isTraceparent } from "gyre/fleet-support";

export type JobPayload = {
  prompt: string;
  /** A folder every worker can reach (a shared disk); the agent works in it directly. */
  cwd?: string;
  /** A repository each attempt clones into a fresh folder (`url`, optional `ref`). */
  git?: { url: string; ref?: string };
  /** A folder every worker can reach that each attempt copies into a fresh folder (eval tasks). */
  folder?: string;
  /** A shell command run in the job's folder after the run; its exit code and output go in the result. */
  check?: string;
  provider?: string;
  model?: string;
  /** For the faux provider only: a script file the workers can read. */
  fauxScript?: string;
  tools?: string[];
  maxTurns?: number;
  maxCostUsd?: number;
  sandbox?: "workspace-write" | "read-only" | "off";
  mcpConfig?: string;
  /** W3C trace context: the worker's child joins this trace (docs/usage-and-telemetry.md). */
  traceparent?: string;
};

const FIELDS = new Set([
  "prompt",
  "cwd",
  "git",
  "folder",
  "check",
  "provider",
  "model",
  "fauxScript",
  "tools",
  "maxTurns",
  "maxCostUsd",
  "sandbox",
  "mcpConfig",
  "traceparent",
]);
const SECRET_LIKE = /key|token|secret|password|auth/i;

/** A job's prompt travels through Redis and a pipe; a longer one belongs in a file in the job's folder. */
export const MAX_JOB_PROMPT_BYTES = 1024 * 1024;

/** The first key at any depth that looks like it holds a secret (`git.token`), as a dotted path. */
function findSecretKey(value: unknown, path: string, depth = 0): string | undefined {
  if (value === null || typeof value !== "object" || depth > 20) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
    if (!Array.isArray(value) && SECRET_LIKE.test(key)) return here;
    const nested = findSecretKey(child, here, depth + 1);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** Checks a payload; `error` is one sentence saying what is wrong (a poisoned job fails with it, unretried). */
export function parseJobPayload(value: unknown): { ok: true; value: JobPayload } | { ok: false; error: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, error: "The job payload is not an object." };
  const record = value as Record<string, unknown>;
  const secret = findSecretKey(record, "");
  if (secret !== undefined) {
    return {
      ok: false,
      error: `The job carries "${secret}"; keys never travel in jobs — give them to the workers (environment).`,
    };
  }
  const unknown = Object.keys(record).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) return { ok: false, error: `The job has unknown fields ${unknown.join(", ")}.` };
  if (typeof record.prompt !== "string" || record.prompt.trim() === "")
    return { ok: false, error: "The job has no prompt." };
  const promptBytes = Buffer.byteLength(record.prompt, "utf8");
  if (promptBytes > MAX_JOB_PROMPT_BYTES)
    return {
      ok: false,
      error: `The job's prompt is ${promptBytes} bytes, over the ${MAX_JOB_PROMPT_BYTES}-byte limit; put the material in a file in the job's folder and ask for it to be read.`,
    };
  if ([record.cwd, record.git, record.folder].filter((source) => source !== undefined).length !== 1)
    return { ok: false, error: "The job needs exactly one of cwd, git or folder." };
  for (const key of ["cwd", "folder"] as const) {
    const path = record[key];
    if (path !== undefined && (typeof path !== "string" || !path.startsWith("/")))
      return { ok: false, error: `The job's ${key} must be an absolute path.` };
  }
  const git = record.git as Record<string, unknown> | undefined;
  if (
    git !== undefined &&
    (typeof git !== "object" ||
      typeof git.url !== "string" ||
      (git.ref !== undefined && typeof git.ref !== "string") ||
      Object.keys(git).some((key) => key !== "url" && key !== "ref"))
  ) {
    return { ok: false, error: "The job's git must be {url, ref?} with strings." };
  }
  if (git !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(git.url as string))
    return {
      ok: false,
      error: "The job's git url carries a password; keys never travel in jobs — give the workers a credential helper.",
    };
  for (const key of ["provider", "model", "fauxScript", "mcpConfig", "check"] as const) {
    if (record[key] !== undefined && typeof record[key] !== "string")
      return { ok: false, error: `The job's ${key} must be a string.` };
  }
  for (const key of ["maxTurns", "maxCostUsd"] as const) {
    const number = record[key];
    if (number !== undefined && (typeof number !== "number" || !(number > 0)))
      return { ok: false, error: `The job's ${key} must be a positive number.` };
  }
  if (
    record.tools !== undefined &&
    (!Array.isArray(record.tools) || !record.tools.every((tool) => typeof tool === "string"))
  ) {
    return { ok: false, error: "The job's tools must be a list of tool names." };
  }
  if (record.sandbox !== undefined && !["workspace-write", "read-only", "off"].includes(record.sandbox as string)) {
    return { ok: false, error: "The job's sandbox must be workspace-write, read-only or off." };
  }
  if (record.traceparent !== undefined && !isTraceparent(record.traceparent as string))
    return { ok: false, error: "The job's traceparent must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)." };
  return { ok: true, value: record as JobPayload };
}

/** The CLI arguments that run a payload (the worker adds --mode json, -p and --session). */
export function payloadArguments(payload: JobPayload): string[] {
  const args: string[] = [];
  if (payload.provider !== undefined) args.push("--provider", payload.provider);
  if (payload.model !== undefined) args.push("--model", payload.model);
  if (payload.fauxScript !== undefined) args.push("--faux-script", payload.fauxScript);
  if (payload.tools !== undefined)
    args.push(...(payload.tools.length === 0 ? ["--no-tools"] : ["--tools", payload.tools.join(",")]));
  if (payload.maxTurns !== undefined) args.push("--max-turns", String(payload.maxTurns));
  if (payload.maxCostUsd !== undefined) args.push("--max-cost", String(payload.maxCostUsd));
  if (payload.sandbox !== undefined) args.push("--sandbox", payload.sandbox);
  if (payload.mcpConfig !== undefined) args.push("--mcp-config", payload.mcpConfig);
  return args;
}
