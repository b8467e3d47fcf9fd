/**
 * `gyre mcp serve [gyre flags…]`: gyre as an MCP server on stdio (docs/design/mcp.md), so another agent
 * (Claude Code, Codex, a second gyre) can delegate a task. Tools: `gyre` runs a prompt in a folder
 * with budgets and returns the final answer; `gyre_reply` continues that session. Progress
 * notifications carry gyre's events. Flags after `serve` (provider, model, sandbox…) apply to
 * every task.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { formatLimit, installLineBuffer, LineBuffer } from "../../core/mcp/line-buffer.js";
import { version } from "../../version.js";
import { type GyreTaskOutcome, runGyreTask } from "./run-gyre-task.js";
import type { McpCommandIo } from "./run-mcp-command.js";

const budgetProperties = {
  maxTurns: { type: "integer", minimum: 1, description: "Stop after this many model calls." },
  maxCostUsd: { type: "number", exclusiveMinimum: 0, description: "Stop once the run has cost this much (USD)." },
} as const;

const tools = [
  {
    name: "gyre",
    description:
      "Delegate a coding task to gyre, a terminal coding agent: it works in the given folder with its own tools (read, write, edit, bash) and returns its final answer and a sessionId for gyre_reply.",
    inputSchema: {
      type: "object",
      properties: {
        prompt: { type: "string", description: "The task, as you would tell a colleague." },
        cwd: {
          type: "string",
          description:
            "The folder to work in (absolute, or relative to the server's folder). Default: the server's folder.",
        },
        ...budgetProperties,
      },
      required: ["prompt"],
    },
  },
  {
    name: "gyre_reply",
    description:
      "Continue a gyre session started by the gyre tool: send a follow-up message and get the next final answer.",
    inputSchema: {
      type: "object",
      properties: {
        sessionId: { type: "string", description: "The sessionId a gyre or gyre_reply call returned." },
        prompt: { type: "string", description: "The follow-up message." },
        ...budgetProperties,
      },
      required: ["sessionId", "prompt"],
    },
  },
];

/** Events not worth a notification each (token deltas would flood the client). */
const quietEvents = new Set(["message_update", "session"]);

/** The largest request line `gyre mcp serve` reads (a prompt, with room to spare). */
const maxRequestBytes = 10 * 1024 * 1024;

/** Serves until stdin closes; exit code 0. */
export async function runServeCommand(flags: string[], io: McpCommandIo): Promise<number> {
  const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const server = new Server({ name: "gyre", version }, { capabilities: { tools: {} } });
  /** The folder of each session this server started, so gyre_reply continues it in the same place. */
  const sessionFolders = new Map<string, string>();
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const name = request.params.name;
    if (name !== "gyre" && name !== "gyre_reply") return errorResult(`Unknown tool ${name}; use gyre or gyre_reply.`);
    const prompt = args.prompt;
    if (typeof prompt !== "string" || !prompt.trim()) return errorResult("prompt must be a non-empty string.");
    let cwd = resolve(io.cwd, typeof args.cwd === "string" ? args.cwd : ".");
    let sessionId: string | undefined;
    if (name === "gyre_reply") {
      if (typeof args.sessionId !== "string") return errorResult("sessionId must be the string a gyre call returned.");
      // Only sessions this server started: an id is not a path to any session file on the disk.
      const folder = sessionFolders.get(args.sessionId);
      if (folder === undefined)
        return errorResult(
          `No session ${JSON.stringify(args.sessionId.slice(0, 200))} was started by this gyre mcp serve; pass a sessionId a gyre call returned.`,
        );
      sessionId = args.sessionId;
      cwd = folder;
    } else if (!(await isDirectory(cwd))) {
      return errorResult(`cwd ${cwd} does not exist (or is not a folder); pass an existing folder.`);
    }
    const budgetFlags = [
      ...(typeof args.maxTurns === "number" ? ["--max-turns", String(args.maxTurns)] : []),
      ...(typeof args.maxCostUsd === "number" ? ["--max-cost", String(args.maxCostUsd)] : []),
    ];
    const progressToken = extra._meta?.progressToken;
    let progress = 0;
    const outcome = await runGyreTask({
      prompt,
      cwd,
      ...(sessionId ? { sessionId } : {}),
      flags: [...flags, ...budgetFlags],
      env: io.env,
      signal: extra.signal,
      onEvent: (event) => {
        if (progressToken === undefined || quietEvents.has(String(event.type))) return;
        progress++;
        void extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, message: summariseEvent(event) },
          })
          .catch(() => {});
      },
    });
    if (outcome.sessionId) sessionFolders.set(outcome.sessionId, cwd);
    return toToolResult(outcome);
  });
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
  });
  const transport = new StdioServerTransport();
  const { deserializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
  installLineBuffer(
    transport,
    new LineBuffer({
      maxLineBytes: maxRequestBytes,
      parse: deserializeMessage,
      // An over-long request is answered (JSON-RPC "invalid request", naming the limit) and serving goes on.
      onOversize: ({ bytes, limit, id }) => {
        void transport
          .send({
            jsonrpc: "2.0",
            id: (id ?? null) as string | number,
            error: {
              code: -32600,
              message: `The request was ${formatLimit(bytes)}, above gyre mcp serve's limit of ${formatLimit(limit)} per message; it was not read.`,
            },
          })
          .catch(() => {});
        return undefined;
      },
    }),
  );
  // The SDK's transport does not notice the end of stdin; without this the process would end
  // with Node's "unsettled top-level await" code 13 instead of 0.
  process.stdin.once("end", () => void server.close().catch(() => {}));
  await server.connect(transport);
  await closed;
  return 0;
}

/** One event as a short JSON line: its type and identifying fields, long values cut. */
function summariseEvent(event: Record<string, unknown>): string {
  const { messages: _messages, message: _message, result, partialResult: _partial, ...rest } = event;
  const text = JSON.stringify(result ? { ...rest, isError: event.isError } : rest);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function toToolResult(outcome: GyreTaskOutcome): CallToolResult {
  const structuredContent = {
    sessionId: outcome.sessionId ?? null,
    reason: outcome.reason ?? null,
    exitCode: outcome.exitCode,
  };
  if (outcome.exitCode === 0) {
    const footer = outcome.sessionId ? `\n\n[gyre session ${outcome.sessionId}; continue it with gyre_reply]` : "";
    return {
      content: [{ type: "text", text: `${outcome.text || "(gyre finished without a final answer)"}${footer}` }],
      structuredContent,
    };
  }
  const stderr = outcome.stderr.trim().split("\n").slice(-5).join("\n");
  return {
    content: [
      {
        type: "text",
        text: `gyre did not finish the task (reason: ${outcome.reason ?? `exit ${outcome.exitCode}`}).${outcome.text ? `\nLast answer: ${outcome.text}` : ""}${stderr ? `\n${stderr}` : ""}`,
      },
    ],
    structuredContent,
    isError: true,
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
