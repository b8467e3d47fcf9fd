/**
 * The library entry of the `gyre` package. `createAgentSession` builds the whole coding agent
 * (tools, sessions, compaction, settings, extensions) for a program of its own, without the CLI.
 * Importing this module starts nothing.
 */
export {
  AgentSession,
  type AgentSessionOptions,
  type SessionEvent,
  type SessionSnapshot,
} from "./core/agent-session.js";
export type { Settings } from "./core/config/settings.js";
export type { RuntimeNotice } from "./core/create-runtime.js";
export { CliError, type CliErrorCode } from "./core/errors.js";
export {
  type CreateAgentSessionOptions,
  type CreatedAgentSession,
  createAgentSession,
  type SdkSessionChoice,
} from "./core/sdk.js";
