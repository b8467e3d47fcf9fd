/**
 * The tools and system prompt a session offers its agent: every tool, minus those a restriction
 * (plan mode) withholds, and the base prompt plus the restriction's note. One place, so tools,
 * `/reload` and a mode switch never undo each other.
 */
import type { Agent, AnyAgentTool } from "@gyre/agent";

/**
 * Tools withheld from the model (not offered at all), the sentence the model gets when it calls
 * one anyway, and a note appended to the system prompt.
 */
export type SessionRestriction = {
  withhold?: (tool: AnyAgentTool) => boolean;
  describeWithheld?: (name: string) => string;
  systemPromptNote?: string;
};

export class SessionToolset {
  private tools: AnyAgentTool[];
  private restriction: SessionRestriction | undefined;

  constructor(
    private readonly agent: Pick<Agent, "setTools" | "setSystemPrompt">,
    tools: readonly AnyAgentTool[],
    private systemPrompt: string,
  ) {
    this.tools = [...tools];
  }

  /** Every tool; the agent gets those the restriction does not withhold. */
  setTools(tools: readonly AnyAgentTool[]): void {
    this.tools = [...tools];
    this.apply();
  }

  setRestriction(restriction: SessionRestriction | undefined): void {
    this.restriction = restriction;
    this.apply();
  }

  setSystemPrompt(systemPrompt: string): void {
    this.systemPrompt = systemPrompt;
    this.agent.setSystemPrompt(this.basePrompt());
  }

  /** The prompt runs start from (extensions may change it per run): the base plus the restriction's note. */
  basePrompt(): string {
    const note = this.restriction?.systemPromptNote;
    return note ? `${this.systemPrompt}\n\n${note}` : this.systemPrompt;
  }

  /** Why the model cannot call `name` now, when the restriction withholds it; undefined otherwise. */
  describeWithheld(name: string): string | undefined {
    const { withhold, describeWithheld } = this.restriction ?? {};
    const tool = this.tools.find((candidate) => candidate.name === name);
    if (!tool || !withhold?.(tool)) return undefined;
    return describeWithheld?.(name) ?? `\`${name}\` is unavailable in this session's mode.`;
  }

  private apply(): void {
    const withhold = this.restriction?.withhold;
    this.agent.setTools(withhold ? this.tools.filter((tool) => !withhold(tool)) : this.tools);
    this.agent.setSystemPrompt(this.basePrompt());
  }
}
