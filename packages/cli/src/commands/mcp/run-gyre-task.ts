/**
 * One delegated task for `gyre mcp serve`: gyre runs in JSON mode as a child process in the
 * task's folder (its own sandbox, budgets and session file), and each event line is handed to
 * `onEvent` as it arrives. A child keeps one task's failure or crash away from the server.
 */
import { spawn } from "node:child_process";

export type GyreTaskOutcome = {
  /** The final assistant text ("" when the run ended without one). */
  text: string;
  sessionId: string | undefined;
  /** Why the run ended (`stop`, `budget`, `error`, `aborted`…), from `agent_end`. */
  reason: string | undefined;
  exitCode: number | null;
  /** The child's stderr (bounded), for a failed run's error text. */
  stderr: string;
};

type EventLine = { type?: string; id?: string; reason?: string; messages?: { role?: string; content?: unknown }[] };

/**
 * Runs `gyre --mode json -p <prompt> [--session <id>] [extra flags]` in `cwd`; resolves when it
 * exits (never rejects for a failed run: the outcome says what happened). Aborting `signal`
 * sends SIGTERM, on which gyre saves the session and exits.
 */
export function runGyreTask(options: {
  prompt: string;
  cwd: string;
  sessionId?: string;
  /** Flags for the child gyre (budgets, provider, the serve command's own pass-through flags). */
  flags: string[];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onEvent: (event: Record<string, unknown>) => void;
}): Promise<GyreTaskOutcome> {
  const gyre = process.argv[1] ?? "gyre";
  const args = [
    gyre,
    "--mode",
    "json",
    ...options.flags,
    ...(options.sessionId ? ["--session", options.sessionId] : []),
    "-p",
    options.prompt,
  ];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const outcome: GyreTaskOutcome = { text: "", sessionId: undefined, reason: undefined, exitCode: null, stderr: "" };
  const onAbort = () => child.kill("SIGTERM");
  options.signal.addEventListener("abort", onAbort, { once: true });
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) handleLine(line, outcome, options.onEvent);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    outcome.stderr = (outcome.stderr + chunk).slice(-8000);
  });
  return new Promise((resolve) => {
    child.on("error", (error) => {
      outcome.stderr += error.message;
    });
    child.on("close", (code) => {
      if (pending) handleLine(pending, outcome, options.onEvent);
      options.signal.removeEventListener("abort", onAbort);
      outcome.exitCode = code;
      resolve(outcome);
    });
  });
}

function handleLine(line: string, outcome: GyreTaskOutcome, onEvent: (event: Record<string, unknown>) => void): void {
  if (!line.trim()) return;
  let event: EventLine;
  try {
    event = JSON.parse(line) as EventLine;
  } catch {
    return;
  }
  if (event.type === "session" && typeof event.id === "string") outcome.sessionId = event.id;
  if (event.type === "agent_end") {
    outcome.reason = event.reason;
    const last = [...(event.messages ?? [])].reverse().find((message) => message.role === "assistant");
    if (last) outcome.text = textOf(last.content);
  }
  onEvent(event as Record<string, unknown>);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (block): block is { type: "text"; text: string } => block?.type === "text" && typeof block.text === "string",
    )
    .map((block) => block.text)
    .join("");
}
