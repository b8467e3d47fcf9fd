/**
 * The session's side of diagnostics (docs/lsp.md): write and edit wrapped so their result ends
 * with what the edit changed in the file's diagnostics, and the `diagnostics` tool. Imported by
 * create-runtime only when an `lsp` setting names a server.
 */
import type { AgentToolResult, AnyAgentTool } from "@gyre/agent";
import { Type } from "@sinclair/typebox";
import { LspService, type LspServiceOptions } from "./lsp-service.js";

/** What edits a file, and so is wrapped. */
const EDITING_TOOLS = new Set(["write", "edit"]);

export type LspAttachment = {
  service: LspService;
  /** `tools` with write and edit wrapped, and the diagnostics tool after them when either is there. */
  tools: AnyAgentTool[];
};

/** Wraps the session's tools for the servers of `options.servers`; nothing starts until a matching edit. */
export function attachLsp(tools: readonly AnyAgentTool[], options: LspServiceOptions): LspAttachment {
  const service = new LspService(options);
  const wrapped = tools.map((tool) => (EDITING_TOOLS.has(tool.name) ? withDiagnostics(tool, service) : tool));
  const edits = tools.some((tool) => EDITING_TOOLS.has(tool.name));
  return { service, tools: edits ? [...wrapped, createDiagnosticsTool(service)] : wrapped };
}

/**
 * The tool, its result followed by a diagnostics block for files a server serves. The baseline is
 * taken before the tool runs; a tool that throws gets no block (nothing was written).
 */
export function withDiagnostics(tool: AnyAgentTool, service: LspService): AnyAgentTool {
  return {
    ...tool,
    async execute(args, context) {
      const path = typeof args?.path === "string" ? args.path : undefined;
      // A failure here must not stop the edit; it is reported after it instead.
      const watch =
        path === undefined ? undefined : await service.before(path, context.signal).catch((error: Error) => error);
      const result: AgentToolResult<unknown> = await tool.execute(args, context);
      if (!watch) return result;
      const block =
        watch instanceof Error
          ? notTaken(watch)
          : await service.after(watch, context.signal).catch((error: Error) => notTaken(error));
      const details = result.details && typeof result.details === "object" ? result.details : {};
      return {
        ...result,
        content: [...result.content, { type: "text", text: `\n${block.text}` }],
        details: { ...details, diagnostics: { introduced: block.introduced, fixed: block.fixed } },
      };
    },
  };
}

function notTaken(error: Error) {
  const text = `Diagnostics introduced by this edit:\nThe diagnostics could not be taken (${error.message}).`;
  return { text, introduced: 0, fixed: 0 };
}

const diagnosticsParameters = Type.Object({
  path: Type.Optional(
    Type.String({
      description: "The file to check, relative to the workspace; omit it for every file a server has open.",
    }),
  ),
});

/** `diagnostics {path?}`: the current diagnostics of a file (or of all open ones) from its language server. */
export function createDiagnosticsTool(service: LspService): AnyAgentTool {
  return {
    name: "diagnostics",
    label: "Diagnostics",
    description:
      "List a file's current errors and warnings from the project's language server " +
      `(configured: ${service.describeServers()}). write and edit already report what they introduce; ` +
      "use this to check a file changed some other way (bash) or after a time-out.",
    parameters: diagnosticsParameters,
    readOnly: true,
    async execute(args: { path?: string }, { signal }) {
      const text = await service.describeCurrent(args.path, signal);
      return { content: [{ type: "text", text }], details: {} };
    },
  };
}
