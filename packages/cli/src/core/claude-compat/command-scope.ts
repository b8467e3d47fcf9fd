/**
 * A command's front-matter for its one prompt (docs/claude-compat.md): `allowed-tools` approves
 * those calls as the user's "yes" would (deny rules and plan mode still hold), `model` runs the
 * prompt on that model. Both end when the session is idle again, or when the next prompt is
 * resolved, whichever comes first: the model the session had comes back, unless the user picked
 * another meanwhile.
 */
import type { Model, ModelRegistry } from "@gyre/ai";
import type { AgentSession } from "../agent-session.js";
import type { InputResolution } from "../extensions/resolve-input.js";
import type { Safety } from "../permissions/create-safety.js";
import type { PromptTemplate } from "../prompt-templates/prompt-templates.js";
import { createPathPolicy } from "../tools/path-policy.js";
import { createNodeFileSystem } from "../tools/tool-fs.js";
import { createUserShell } from "../user-shell.js";
import { mapClaudeRule } from "./claude-compat.js";
import { type CommandBodyIo, expandCommandBody } from "./command-body.js";

type Resolve = (text: string) => Promise<InputResolution>;

/** Claude's model aliases: gyre cannot know which of the user's models they mean, so the session's runs. */
const MODEL_ALIASES: ReadonlySet<string> = new Set(["inherit", "sonnet", "opus", "haiku"]);

/** How long a command's `!`cmd`` may run, as the bash tool's default: its process group is ended then. */
const COMMAND_LINE_TIMEOUT_SECONDS = 120;

export type CommandScopesOptions = {
  safety: Pick<Safety, "setPromptApproval" | "gate" | "sandbox" | "readDenied">;
  models: ModelRegistry;
  /** The workspace: `!`cmd`` runs there, `@path` must lie in it (or under `allowPaths`); `/path` in an `allowed-tools` rule counts from it. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  allowPaths: readonly string[];
};

export class CommandScopes {
  private session: AgentSession | undefined;
  /** The template in scope, the model to go back to and the one it chose (undefined: it changed only approvals). */
  private active: { template: PromptTemplate; previous?: Model; chosen?: Model } | undefined;
  private bodyIo: CommandBodyIo | undefined;
  private ownCalls = 0;

  constructor(private readonly options: CommandScopesOptions) {}

  /** The session whose model is switched; the scope ends when it is idle. */
  attach(session: AgentSession): void {
    this.session = session;
    session.subscribe((event) => {
      if (event.type === "session_idle") this.end();
    });
  }

  /** `resolve` with each template's scope applied once its prompt is resolved (after any earlier one ended). */
  wrap(resolve: Resolve): Resolve {
    return async (text) => {
      this.end();
      const resolved = await resolve(text);
      if (resolved.kind === "prompt" && resolved.template && this.active?.template !== resolved.template)
        this.begin(resolved.template);
      return resolved;
    };
  }

  /**
   * A Claude command's body with its `!`cmd`` run and `@path` files added (command-body.ts), in
   * the command's scope: its allowed-tools are what let a `!`cmd`` run without a question.
   */
  async expand(template: PromptTemplate, text: string): Promise<string> {
    if (this.active?.template !== template) {
      this.end();
      this.begin(template);
    }
    // The session gives input resolution no signal: each command ends at its timeout.
    return expandCommandBody(text, this.io(), new AbortController().signal);
  }

  private io(): CommandBodyIo {
    const { safety, cwd, env, allowPaths } = this.options;
    const fs = createNodeFileSystem();
    this.bodyIo ??= {
      check: async (command, signal) => {
        const verdict = await safety.gate.checkOwnCall(
          {
            id: `command-line-${++this.ownCalls}`,
            toolName: "bash",
            args: { command },
            reason:
              "a command's !`…` line runs before its prompt is sent, and no allowed-tools entry or allow rule covers it",
          },
          signal,
        );
        return verdict?.block ? (verdict.reason ?? "refused by the approval gate") : undefined;
      },
      shell: createUserShell({ cwd, env, sandbox: safety.sandbox, timeoutSeconds: COMMAND_LINE_TIMEOUT_SECONDS }),
      policy: createPathPolicy({ cwd, allowedPaths: allowPaths, fs, ...(env.HOME ? { homeDir: env.HOME } : {}) }),
      fs,
      readDenied: () => safety.readDenied(),
    };
    return this.bodyIo;
  }

  private begin(template: PromptTemplate): void {
    const session = this.session;
    const rules: string[] = [];
    for (const tool of template.allowedTools ?? []) {
      const mapped = mapClaudeRule(tool, "allow", { projectDir: this.options.cwd });
      if (mapped.length > 0) rules.push(...mapped);
      else
        this.tell(
          `/${template.name}: allowed-tools entry ${JSON.stringify(tool)} has no gyre equivalent; it is ignored.`,
        );
    }
    this.active = { template };
    this.options.safety.setPromptApproval(rules);
    if (!template.model || MODEL_ALIASES.has(template.model) || !session) return;
    const current = session.state.model;
    const chosen = this.findModel(template.model, current);
    if (!chosen) {
      this.tell(
        `/${template.name} asks for model "${template.model}", which is not configured; it runs on ${current.id}.`,
      );
      return;
    }
    if (sameModel(chosen, current)) return;
    session.setModel(chosen);
    this.active = { template, previous: current, chosen };
  }

  private end(): void {
    const active = this.active;
    if (!active) return;
    this.active = undefined;
    this.options.safety.setPromptApproval([]);
    const session = this.session;
    if (session && active.previous && active.chosen && sameModel(session.state.model, active.chosen))
      session.setModel(active.previous);
  }

  /** `provider/id`, or an id of the session's provider, else of any provider (registered models only). */
  private findModel(name: string, current: Model): Model | undefined {
    const slash = name.indexOf("/");
    if (slash > 0) return this.options.models.findModel(name.slice(0, slash), name.slice(slash + 1));
    const { models } = this.options;
    return (
      models.findModel(current.provider, name) ??
      models
        .getProviders()
        .map((provider) => models.findModel(provider.name, name))
        .find((model) => model !== undefined)
    );
  }

  private tell(text: string): void {
    this.session?.notice("session", text, "warning");
  }
}

const sameModel = (a: Model, b: Model) => a.provider === b.provider && a.id === b.id;
