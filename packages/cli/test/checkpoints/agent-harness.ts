/**
 * A real Agent with the CLI's real coding tools and turn checkpoints, persisting into a real
 * session file the way AgentSession does (a message when it ends). Each prompt starts from the
 * session's current branch, so a rewound conversation is what the next prompt sees.
 */
import { Agent } from "@gyre/agent";
import { createFauxModel, type FauxResponse } from "@gyre/ai/testing";
import { ShadowRepository } from "../../src/core/checkpoints/shadow-repository.js";
import { TurnCheckpoints } from "../../src/core/checkpoints/turn-checkpoints.js";
import { createRedactor } from "../../src/core/session/redact-secrets.js";
import { SessionManager } from "../../src/core/session/session-manager.js";
import { createCodingTools } from "../../src/core/tools/index.js";

export type Harness = {
  session: SessionManager;
  repository: ShadowRepository;
  notices: string[];
  /** Runs one prompt whose model answers with `responses` in order; returns the user message's entry id. */
  prompt(text: string, responses: FauxResponse[]): Promise<string>;
};

/** A bash tool call as the model would send it. */
export function bash(command: string): FauxResponse {
  return { content: [{ type: "toolCall", name: "bash", arguments: { command } }] };
}

export function write(path: string, content: string): FauxResponse {
  return { content: [{ type: "toolCall", name: "write", arguments: { path, content } }] };
}

export const done: FauxResponse = { content: [{ type: "text", text: "Done." }] };

export async function createHarness(options: { workspace: string; gyreHome: string }): Promise<Harness> {
  const session = SessionManager.create({
    sessionsDir: `${options.gyreHome}/sessions`,
    cwd: options.workspace,
    redact: createRedactor(),
  });
  const repository = await ShadowRepository.open({ gyreHome: options.gyreHome, workspace: options.workspace });
  const notices: string[] = [];
  const checkpoints = new TurnCheckpoints({
    repository: async () => repository,
    session: () => session,
    onNotice: (text) => notices.push(text),
  });
  const tools = createCodingTools({ cwd: options.workspace, tools: ["read", "write", "edit", "bash"] });
  const prompt = async (text: string, responses: FauxResponse[]) => {
    const faux = createFauxModel(responses);
    const agent = new Agent({
      model: faux.model,
      tools,
      messages: session.buildContext().messages,
      beforeToolCall: checkpoints.beforeToolCall,
    });
    let userEntryId: string | undefined;
    agent.subscribe(async (event) => {
      if (event.type === "message_end") {
        const id = session.appendMessage(event.message);
        if (event.message.role === "user") userEntryId ??= id;
      }
      await checkpoints.handleEvent(event);
      if (event.type === "agent_end") await session.flush();
    });
    await agent.prompt(text);
    if (userEntryId === undefined) throw new Error("the run recorded no user message");
    return userEntryId;
  };
  return { session, repository, notices, prompt };
}
