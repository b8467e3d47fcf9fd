import type { Model, ModelRegistry } from "@gyre/ai";
import type { Settings } from "./config/settings.js";
import type { RuntimeNotice } from "./inspect-project.js";
import type { PromptTemplate } from "./prompt-templates/prompt-templates.js";
import type { Skill } from "./skills/load-skills.js";
import type { BackgroundShells } from "./tools/background-shells.js";

/**
 * What start-up settled about where a session runs, for front ends to show: plain data, read
 * through `AgentSession.info`. `/reload` updates `settings`, `skills` and `templates` in place.
 */
export type SessionInfo = {
  cwd: string;
  gyreHome: string;
  /** Where `/resume` lists sessions (`$GYRE_HOME/sessions`). */
  sessionsDir: string;
  trusted: boolean;
  contextFiles: string[];
  /** What the user should hear about from start-up (trust, skills, extensions, damaged session lines). */
  notices: RuntimeNotice[];
  /** The effective settings: files, then the caller's overrides. */
  settings: Settings;
  skills: readonly Skill[];
  templates: readonly PromptTemplate[];
  /** Theme files of installed packages (the TUI's `theme` setting may name one). */
  themeFiles: string[];
  /** The model the session started on (quick switches keep its endpoint). */
  startupModel: Model;
  /** The providers and models this session knows (built-ins and its models.json). */
  models: ModelRegistry;
  /** The loaded extensions' files. */
  extensionPaths: string[];
  /** bash's background shells (`/shells`, RPC `get_state`); the session's `dispose` ends them. */
  shells?: BackgroundShells;
};
