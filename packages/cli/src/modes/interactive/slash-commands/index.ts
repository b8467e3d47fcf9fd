import { compactCommand } from "./compact-command.js";
import { copyCommand } from "./copy-command.js";
import { costCommand } from "./cost-command.js";
import { diffCommand } from "./diff-command.js";
import { exportCommand } from "./export-command.js";
import { forkCommand } from "./fork-command.js";
import { helpCommand } from "./help-command.js";
import { initCommand } from "./init-command.js";
import { loginCommand } from "./login-command.js";
import { mcpCommand } from "./mcp-command.js";
import { memoryCommand } from "./memory-command.js";
import { modelCommand } from "./model-command.js";
import { nameCommand } from "./name-command.js";
import { newCommand } from "./new-command.js";
import { quitCommand } from "./quit-command.js";
import { reloadCommand } from "./reload-command.js";
import { resumeCommand } from "./resume-command.js";
import { reviewCommand } from "./review-command.js";
import { rewindCommand } from "./rewind-command.js";
import { sessionCommand } from "./session-command.js";
import { settingsCommand } from "./settings-command.js";
import { shellsCommand } from "./shells-command.js";
import { thinkingCommand } from "./thinking-command.js";
import { treeCommand } from "./tree-command.js";
import type { SlashCommand } from "./types.js";
import { usageCommand } from "./usage-command.js";

/** The built-in slash commands, in the order /help lists them. */
export const slashCommands: readonly SlashCommand[] = [
  modelCommand,
  thinkingCommand,
  newCommand,
  resumeCommand,
  treeCommand,
  rewindCommand,
  diffCommand,
  reviewCommand,
  initCommand,
  memoryCommand,
  forkCommand,
  nameCommand,
  compactCommand,
  costCommand,
  usageCommand,
  sessionCommand,
  copyCommand,
  exportCommand,
  settingsCommand,
  reloadCommand,
  mcpCommand,
  shellsCommand,
  loginCommand,
  helpCommand,
  quitCommand,
];

/** Splits "/name rest" into the command name and its argument text; undefined when not a command. */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: (match[1] as string).toLowerCase(), args: match[2] ?? "" };
}
