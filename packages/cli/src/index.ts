/**
 * The library entry of the `gyre` package: `createAgentSession` (the whole coding agent — tools,
 * sessions, compaction, settings, extensions — for a program of its own, without the CLI), the
 * types extension authors compile against, the client for driving `gyre --mode rpc` from another
 * program, and the coding tools. The CLI itself is `bin/gyre.js`; importing this module starts nothing.
 */

export {
  AgentSession,
  type AgentSessionOptions,
  SessionBusyError,
  type SessionInfo,
  type SessionOp,
  type SessionOpResult,
  type SessionOpType,
  type SessionSnapshot,
  type SubmitOptions,
  type WhileBusy,
} from "./core/agent-session.js";
export type { Settings } from "./core/config/settings.js";
export type { RuntimeNotice } from "./core/create-runtime.js";
export { CliError, type CliErrorCode } from "./core/errors.js";
export type {
  AgentMessage,
  AgentTool,
  AgentToolResult,
  ExtensionAPI,
  ExtensionCommand,
  ExtensionContext,
  ExtensionEntry,
  ExtensionEventMap,
  ExtensionEventName,
  ExtensionFactory,
  ExtensionFlag,
  ExtensionHandler,
  ExtensionMessage,
  ExtensionMode,
  ExtensionOnlyEvents,
  ExtensionResult,
  ExtensionResultMap,
  ExtensionUI,
  SessionEvent,
  TSchema,
  UserInterface,
} from "./core/extensions/types.js";
export {
  type CreateAgentSessionOptions,
  type CreatedAgentSession,
  createAgentSession,
  type SdkSessionChoice,
} from "./core/sdk.js";
export {
  CODING_TOOL_NAMES,
  type CodingToolName,
  type CodingToolsOptions,
  createCodingTools,
  DEFAULT_TOOL_NAMES,
} from "./core/tools/index.js";
export { RpcClient, type RpcClientOptions, type RpcEvent } from "./modes/rpc/rpc-client.js";
export type {
  RpcCommand,
  RpcCommandType,
  RpcResponse,
  RpcUiNotice,
  RpcUiRequest,
} from "./modes/rpc/rpc-types.js";
export { rpcCommandTypes } from "./modes/rpc/rpc-types.js";
