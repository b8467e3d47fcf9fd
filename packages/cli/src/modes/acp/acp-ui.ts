/**
 * How a gyre session asks the editor (docs/acp.md): an approval is a `session/request_permission`
 * with allow once / allow always / reject once / reject always; a yes/no question from an
 * extension is the same request with two options. Select and text questions are declined (ACP v1
 * has no such request for agents), and notices become `notice` updates. Nothing is asked before
 * the session has an id, nor after the editor went away: those are a no.
 */
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ApprovalRequest, UserInterface } from "../../core/user-interface.js";
import { toolKind, toolLocations, toolTitle } from "./acp-tool-calls.js";

export type AcpPeer = {
  /** The editor, once connected. */
  client(): AgentContext | undefined;
  /** The ACP session id, once the session exists. */
  sessionId(): string | undefined;
  cwd: string;
  /** Called when the user allowed a call: it runs now. */
  onAllowed?(toolCallId: string): void;
  notice(text: string, level: "info" | "warning" | "error"): void;
};

const approvalOptions: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
];

const questionOptions: PermissionOption[] = [
  { optionId: "yes", name: "Yes", kind: "allow_once" },
  { optionId: "no", name: "No", kind: "reject_once" },
];

export function createAcpUserInterface(peer: AcpPeer): UserInterface {
  /** Tools the user rejected "always" in this session: asked no more, denied at once. */
  const rejectedAlways = new Set<string>();
  let questions = 0;
  const ask = async (
    toolCall: ToolCallUpdate,
    options: PermissionOption[],
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> => {
    const client = peer.client();
    const sessionId = peer.sessionId();
    if (!client || !sessionId || signal?.aborted) return undefined;
    try {
      const response: RequestPermissionResponse = await client.request(
        "session/request_permission",
        { sessionId, toolCall, options },
        signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
      );
      return response.outcome.outcome === "selected" ? response.outcome.optionId : undefined;
    } catch {
      // The editor went away, answered with an error, or the turn was cancelled: a no.
      return undefined;
    }
  };
  return {
    interactive: true,
    async confirm({ title, message, signal }) {
      const toolCall: ToolCallUpdate = {
        toolCallId: `question-${++questions}`,
        title: message ? `${title}: ${message}` : title,
        kind: "other",
        status: "pending",
      };
      return (await ask(toolCall, questionOptions, signal)) === "yes";
    },
    select: async () => undefined,
    input: async () => undefined,
    notify: (message, level = "info") => peer.notice(message, level),
    async approve(request: ApprovalRequest & { signal?: AbortSignal }): Promise<ApprovalAnswer> {
      if (rejectedAlways.has(request.toolName))
        return { decision: "deny", reason: `The user rejected every ${request.toolName} call in this session.` };
      const toolCall: ToolCallUpdate = {
        toolCallId: request.toolCallId,
        title: toolTitle(request.toolName, request.args),
        kind: toolKind(request.toolName),
        status: "pending",
        locations: toolLocations(request.args, peer.cwd),
        rawInput: request.args,
        content: [{ type: "content", content: { type: "text", text: request.reason } }],
      };
      const choice = await ask(toolCall, approvalOptions, request.signal);
      if (choice === "allow_once" || choice === "allow_always") {
        peer.onAllowed?.(request.toolCallId);
        return { decision: choice === "allow_once" ? "allow" : "allow_always" };
      }
      if (choice === "reject_always") rejectedAlways.add(request.toolName);
      return {
        decision: "deny",
        reason: choice === undefined ? "The editor gave no answer." : "The user rejected it.",
      };
    },
  };
}
