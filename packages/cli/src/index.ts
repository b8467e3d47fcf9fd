/**
 * The library entry of the `gyre` package: the types extension authors compile against, the
 * client for driving `gyre --mode rpc` from another program, and the coding tools for an agent of
 * your own. The CLI itself is `bin/gyre.js`; importing this module starts nothing.
 */
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
