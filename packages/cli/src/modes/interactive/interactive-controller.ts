import type { AgentSession, SessionEvent } from "../../core/agent-session.js";
import { getSessionsDir } from "../../core/config/paths.js";
import type { Runtime } from "../../core/create-runtime.js";
import { describeConnectingServers, describeServerState } from "../../core/mcp/describe-status.js";
import { QuickSwitch, type ScopedModel } from "../model-cycle.js";
import { describeRunFailure } from "../run-outcome.js";
import { attachFiles, describeAttachment } from "./attachments.js";
import { compactionNotice, userMessageText } from "./chat-view.js";
import { FileAutocompleteProvider } from "./file-autocomplete.js";
import { FinishNotifier } from "./finish-notifier.js";
import { readGitBranch } from "./git-branch.js";
import { defaultKeybindings, type Keybindings } from "./keybindings.js";
import { installKeyHandlers } from "./keys.js";
import type { Layout } from "./layout.js";
import { InputDialog, SelectDialog } from "./pickers/select-dialog.js";
import { RunPhase } from "./run-phase.js";
import { RunProgress, spinner } from "./run-progress.js";
import { parseShellInput, runShellInput, type ShellInput, shellRecordsOf, shellStatus } from "./shell-input.js";
import { parseSlashCommand, slashCommands } from "./slash-commands/index.js";
import { listRuntimeCommands, type RuntimeCommand } from "./slash-commands/runtime-commands.js";
import type { CommandContext } from "./slash-commands/types.js";
import { style } from "./theme.js";

/**
 * Connects the screen to the session: session events become components and status lines, the
 * editor's text becomes prompts, steering, follow-ups or slash commands. One per interactive run.
 */
export class InteractiveController {
  readonly session: AgentSession;
  /** Extension commands, prompt templates and skills: `/name` goes to the session, which resolves it. */
  private readonly runtimeCommands: RuntimeCommand[];
  private readonly progress: RunProgress;
  /** The sandbox level for the footer; read once at start and after each plan-mode switch. */
  private sandboxText: string | undefined;
  private readonly context: CommandContext;
  private exitResolve: ((code: number) => void) | undefined;
  private commandRunning = false;
  private shellRunning = false;
  /** A `!cmd` typed while the agent worked, waiting for the run to end. */
  private shellWaiting = false;
  /** Shift+Tab pressed while a prompt ran: the mode toggles once it ends. */
  private modeTogglePending = false;
  private readonly phase: RunPhase;

  private readonly switcher: QuickSwitch;
  private readonly notifier: FinishNotifier;

  constructor(
    private readonly runtime: Runtime,
    private readonly layout: Layout,
    private readonly options: { modelScope?: readonly ScopedModel[]; keybindings?: Keybindings } = {},
  ) {
    this.session = runtime.session;
    this.switcher = new QuickSwitch(runtime.session, {
      startupModel: runtime.model,
      scope: options.modelScope,
      env: process.env,
    });
    const { settings } = runtime;
    this.notifier = new FinishNotifier({
      // Read at each run's end: /reload may change them.
      get channel() {
        return settings.notify;
      },
      get afterMs() {
        return settings.notifyAfterMs;
      },
      write: (data) => layout.tui.terminal.write(data),
      insideTmux: process.env.TMUX !== undefined,
    });
    this.progress = new RunProgress(() => this.session.getStats());
    this.phase = new RunPhase(runtime.session, {
      hasQueued: () => layout.pending.messages.length > 0,
      notify: (text) => this.notify(text),
    });
    this.runtimeCommands = listRuntimeCommands(runtime, new Set(slashCommands.map((command) => command.name)));
    this.context = this.createCommandContext();
  }

  /** Starts the UI; resolves with the exit code once the user leaves. */
  start(options: { initialPrompt?: string; resume?: boolean }): Promise<number> {
    const { layout, session } = this;
    const exited = new Promise<number>((resolve) => {
      this.exitResolve = resolve;
    });
    this.showConversation();
    layout.todos.set(this.runtime.todos.get());
    for (const notice of this.runtime.notices) layout.chat.addNotice(notice.text, "warning");
    const statuses = this.runtime.mcp?.statuses() ?? [];
    const connecting = describeConnectingServers(statuses);
    if (connecting) layout.chat.addNotice(connecting, "info");
    // A server that failed while the screen was being set up said so to no one yet.
    for (const status of statuses) {
      const told = this.runtime.notices.some((notice) => notice.text.includes(`MCP server "${status.name}"`));
      if (status.state === "failed" && !told)
        layout.chat.addNotice(`MCP server "${status.name}" ${describeServerState(status)}.`, "warning");
    }
    session.subscribe((event) => this.onEvent(event));
    installKeyHandlers(
      layout,
      {
        isRunning: () => this.phase.isWorking(),
        abort: () => this.abort(),
        followUp: (text) => this.queue("followUp", text),
        exit: () => this.exit(),
        notify: (text) => layout.status.set(style.gray(text)),
        cycleModel: (direction) => this.quickSwitch(() => this.switcher.cycleModel(direction)),
        selectModel: () => void this.runCommand("model", ""),
        cycleThinking: () => this.quickSwitch(() => this.switcher.cycleThinking()),
        cyclePermissionMode: () => void this.cyclePermissionMode(),
      },
      this.options.keybindings,
    );
    this.runtime.safety.onModeChange(() => void this.refreshSandbox());
    void this.refreshSandbox();
    this.refreshCommands();
    layout.editor.onSubmit = (text) => void this.submit(text);
    layout.editor.attachFrom = this.runtime.cwd;
    this.refreshInfo();
    // Focus reports are the terminal's, never typed text: taken out before the editor sees them.
    layout.tui.addInputListener((data) => (this.notifier.handleInput(data) ? { consume: true } : undefined));
    layout.tui.start();
    this.notifier.start();
    if (options.resume) void this.runCommand("resume", "");
    else if (options.initialPrompt?.trim()) void this.submit(options.initialPrompt);
    return exited;
  }

  /** Lists the runtime commands again (in place: the command context holds the list) and the `/` menu with them. */
  private refreshCommands(): void {
    const builtIn = new Set(slashCommands.map((command) => command.name));
    this.runtimeCommands.splice(0, this.runtimeCommands.length, ...listRuntimeCommands(this.runtime, builtIn));
    const names = [...slashCommands, ...this.runtimeCommands].map(({ name, description }) => ({ name, description }));
    this.layout.editor.setAutocompleteProvider(
      new FileAutocompleteProvider(names, this.runtime.cwd, this.runtime.mcp?.resources),
    );
  }

  /** Handles the editor's text: a slash command, a prompt, or (while running) a steering message. */
  async submit(raw: string): Promise<void> {
    const typed = raw.trim();
    if (!typed) return;
    // History keeps the chips (they stay known); everything after sees the paths they stand for.
    this.layout.editor.addToHistory(typed);
    const text = this.layout.editor.chips.expand(typed);
    const shell = parseShellInput(text);
    if (shell) return this.runShell(shell);
    if (this.shellRunning)
      return this.notify("A shell command is running; wait for it or press Esc to stop it.", "warning");
    const command = parseSlashCommand(text);
    const runtimeCommand = command && this.findRuntimeCommand(command.name);
    if (command && !runtimeCommand) return this.runCommand(command.name, command.args);
    if (command && runtimeCommand && this.phase.isWorking()) {
      if (!this.phase.isWindingDown()) return this.runWhileWorking(runtimeCommand, command.args);
      await this.phase.settleBefore(`/${runtimeCommand.name}`);
    }
    // A compaction or extension run started without the editor finishes first.
    if (!this.phase.tracking) await this.session.whenIdle();
    // While a prompt runs (even as it ends), the session delivers the message through the same path.
    if (this.phase.isWorking()) return this.queue("steer", text);
    await this.prompt(text);
  }

  exit(): void {
    this.layout.status.stopCountdown();
    this.notifier.stop();
    this.layout.stopRendering();
    this.layout.tui.stop();
    this.exitResolve?.(0);
  }

  /** The conversation drawn again from the session: its messages and the branch's `!!cmd` records. */
  private showConversation(): void {
    this.layout.chat.setMessages(this.session.messages, shellRecordsOf(this.session.branch()));
  }

  private prompt(text: string): Promise<void> {
    return this.phase.track(this.runPrompt(text)).finally(() => {
      if (this.modeTogglePending && !this.phase.isWorking()) {
        this.modeTogglePending = false;
        this.cyclePermissionMode().catch((error: Error) => this.notify(error.message, "error"));
      }
    });
  }

  private async runPrompt(text: string): Promise<void> {
    const { session } = this;
    const startedAt = Date.now();
    try {
      // Templates and commands get their arguments as typed; prompts get the files they name.
      const attached = text.startsWith("/") ? undefined : await attachFiles(text, this.runtime.cwd);
      for (const problem of attached?.problems ?? []) this.notify(problem, "warning");
      for (const attachment of attached?.attachments ?? []) this.notify(describeAttachment(attachment));
      const { reason } = await session.prompt(attached?.text ?? text, attached?.images);
      // A limit or a loop ended the run (the user said stop at the pause): say which.
      if (reason === "budget" || reason === "loop")
        this.notify(`Stopped: ${describeRunFailure(session, reason)}`, "warning");
    } catch (error) {
      this.notify(`The run failed: ${(error as Error).message}`, "error");
    }
    this.notifier.runEnded(Date.now() - startedAt, finishMessage(session.state.endReason, Date.now() - startedAt));
    this.refreshInfo();
    this.layout.render();
  }

  /** `!cmd` / `!!cmd`: one at a time, never while the agent works; Esc stops it like a run. */
  private async runShell(input: ShellInput): Promise<void> {
    if (!input.command)
      return this.notify(
        "Type a command after ! (or after !! to keep it out of the context), e.g. !git status.",
        "warning",
      );
    if (this.shellRunning || this.shellWaiting || this.commandRunning)
      return this.notify("Another shell command or slash command is still running; wait for it first.", "warning");
    if (this.phase.isWorking()) {
      // Its output belongs after the run's answer in the conversation, so it waits for the run.
      this.notify(`!${input.command} runs once the agent finishes (Esc stops the agent).`);
      this.shellWaiting = true;
      await this.phase.settle().finally(() => {
        this.shellWaiting = false;
      });
    }
    const { layout } = this;
    const startedAt = Date.now();
    layout.status.setLive((frame) => shellStatus(input.command, startedAt, spinner[frame % spinner.length] ?? ""));
    this.shellRunning = true;
    const run = runShellInput(input, { session: this.session, chat: layout.chat, render: () => layout.render() })
      .then(() => undefined)
      .catch((error: Error) => this.notify(`The shell command failed: ${error.message}`, "error"))
      .finally(() => {
        this.shellRunning = false;
        layout.status.set("");
        this.refreshInfo();
      });
    await this.phase.track(run);
  }

  /** A model or thinking switch from a key: between runs only; the footer and status line show it. */
  private quickSwitch(change: () => string): void {
    // A run that has answered and is only being written away switches as soon as it is done.
    if (this.phase.isWindingDown() && !this.commandRunning)
      return void this.phase.settle().then(() => this.quickSwitch(change));
    if (this.phase.isWorking() || this.commandRunning)
      return void this.layout.status.set(
        style.yellow("Switch the model or thinking level once the agent is idle (or press Esc)."),
      );
    this.layout.status.set(style.gray(change()));
    this.refreshInfo();
  }

  private queue(kind: "steer" | "followUp", text: string): void {
    if (kind === "steer") this.session.steer(text);
    else this.session.followUp(text);
    this.layout.pending.add({ kind, text });
    this.layout.render();
  }

  /** Esc: stops the run; queued messages go back into the editor rather than being lost. */
  private abort(): void {
    const { layout, session } = this;
    const queued = session.takeQueued();
    layout.pending.clear();
    if (queued.length > 0) {
      const current = layout.editor.getText();
      layout.editor.setText([...queued, ...(current ? [current] : [])].join("\n"));
    }
    // The abort reaches every subagent through the task tool's signal; their lines say so.
    layout.subagents.markAborting();
    void session.abort();
    layout.status.set(style.yellow("aborting…"));
  }

  /** A runtime command by the name typed (`/skill:x` included); built-in names never match. */
  private findRuntimeCommand(name: string): RuntimeCommand | undefined {
    return this.runtimeCommands.find((command) => command.name.toLowerCase() === name);
  }

  /**
   * A runtime command typed while the agent works: an extension command runs now (its messages
   * steer the run); a template or skill would steer with text the model was not meant to see
   * unexpanded, so it waits for the user.
   */
  private async runWhileWorking(command: RuntimeCommand, args: string): Promise<void> {
    if (command.kind !== "extension")
      return this.notify(
        `/${command.name} cannot run while the agent works; wait or press Esc to abort first.`,
        "warning",
      );
    try {
      await this.runtime.extensions?.runCommand(command.name, args.trim());
    } catch (error) {
      this.notify(`/${command.name} failed: ${(error as Error).message}`, "error");
    }
  }

  private async runCommand(name: string, args: string): Promise<void> {
    const command = slashCommands.find((candidate) => candidate.name === name);
    if (!command) return this.notify(`Unknown command /${name}; type /help for the list.`, "error");
    if (this.phase.isWorking() && !command.allowWhileRunning && !this.phase.isWindingDown())
      return this.notify(`/${name} cannot run while the agent works; wait or press Esc to abort first.`, "warning");
    if (this.commandRunning) return this.notify("Another command is still running.", "warning");
    this.commandRunning = true;
    try {
      if (!command.allowWhileRunning) await this.phase.settleBefore(`/${name}`);
      await command.run(args, this.context);
    } catch (error) {
      this.notify(`/${name} failed: ${(error as Error).message}`, "error");
    } finally {
      this.commandRunning = false;
      this.layout.render();
    }
  }

  private onEvent(event: SessionEvent): void {
    const { layout } = this;
    if (layout.chat.handleEvent(event)) {
      // Deltas come in bursts; a message's end, a tool's start and the rest draw at once.
      if (event.type === "message_update" || event.type === "tool_execution_update") layout.renderStreamed();
      else layout.render();
    }
    if (layout.subagents.handleEvent(event)) layout.render();
    this.progress.onEvent(event);
    this.phase.onEvent(event);
    switch (event.type) {
      case "message_start":
        if (event.message.role === "user") layout.pending.deliver(userMessageText(event.message));
        // After a retry countdown, the answer is coming: back to the live line.
        else if (event.message.role === "assistant") this.showWorking();
        return;
      case "message_update":
        // The first delta after a retry countdown: the answer is streaming again.
        if (!layout.status.isLive) this.showWorking();
        return;
      case "agent_start":
        this.progress.start();
        this.showWorking();
        return;
      case "agent_end":
        layout.status.set("");
        this.refreshInfo();
        return;
      case "turn_end":
        this.refreshInfo();
        return;
      case "subagent_event":
        // The footer's totals are the tree's: a subagent's model call counts as it ends.
        if (event.event.type === "turn_end") this.refreshInfo();
        return;
      case "retry":
        layout.status.setCountdown(
          `↻ retry ${event.attempt}/${event.maxRetries}`,
          Date.now() + event.delayMs,
          event.reason,
        );
        return;
      case "compaction_start":
        layout.status.set(style.yellow(`⟳ compacting older messages (${event.reason})…`));
        return;
      case "compaction_end":
        if (this.session.state.isRunning && !this.commandRunning) this.showWorking();
        else layout.status.set("");
        if (event.error) this.notify(`Compaction failed: ${event.error}`, "error");
        else
          this.notify(
            compactionNotice(this.session.messages, event.tokensBefore, this.session.getStats().contextTokens),
          );
        this.refreshInfo();
        return;
      case "todo_update":
        layout.todos.set(event.todos);
        layout.render();
        return;
      case "budget_reached":
        this.notify(`Budget reached: ${event.reason}`, "warning");
        return;
      case "notice":
        this.notify(event.message, event.level);
        return;
      case "session_changed":
        this.showConversation();
        this.refreshInfo();
        layout.render();
        return;
      default:
        return;
    }
  }

  private showWorking(): void {
    this.layout.status.setLive((frame) => this.progress.text(frame));
  }

  private notify(text: string, level: "info" | "warning" | "error" = "info"): void {
    this.layout.chat.addNotice(text, level);
    this.layout.render();
  }

  /** Shift+Tab: default → plan → default. Plan mode withholds write/edit and makes bash read-only. */
  private async cyclePermissionMode(): Promise<void> {
    const { safety } = this.runtime;
    // Switching restarts the sandbox, which would kill a command in flight.
    if (this.phase.isWorking()) {
      // Pressed twice during the run, it cancels itself out.
      this.modeTogglePending = !this.modeTogglePending;
      return this.notify(
        this.modeTogglePending
          ? "The permission mode changes once the run ends (Esc stops it)."
          : "The permission mode stays as it is.",
        "warning",
      );
    }
    const plan = safety.permissionMode() !== "plan";
    await safety.setPlanMode(plan);
    this.notify(
      plan
        ? "Plan mode: bash is read-only and write/edit are withheld; Shift+Tab leaves it."
        : "Plan mode left: the tools are back and the plan stays in the conversation.",
    );
  }

  private async refreshSandbox(): Promise<void> {
    this.sandboxText = await this.runtime.safety
      .describeSandbox()
      .catch((error: Error) => `unknown (${error.message})`);
    this.refreshInfo();
  }

  private refreshInfo(): void {
    const { session, runtime, layout } = this;
    const { model, thinkingLevel, sessionName, stats } = session.state;
    layout.header.setModel(`${model.provider}/${model.id}`);
    layout.footer.setInfo({
      cwd: runtime.cwd,
      home: process.env.HOME,
      sessionName,
      stats,
      contextWindow: model.contextWindow,
      model: `${model.provider}/${model.id}`,
      thinkingLevel,
      reasoning: model.reasoning,
      gitBranch: readGitBranch(runtime.cwd),
      permissionMode: runtime.safety.permissionMode(),
      sandbox: this.sandboxText,
    });
    layout.render();
  }

  private createCommandContext(): CommandContext {
    const { layout } = this;
    return {
      runtime: this.runtime,
      session: this.session,
      layout,
      sessionsDir: getSessionsDir(this.runtime.gyreHome),
      commands: slashCommands,
      runtimeCommands: this.runtimeCommands,
      keybindings: this.options.keybindings ?? defaultKeybindings(),
      notify: (text, level) => this.notify(text, level),
      print: (text) => {
        layout.chat.addNotice(text, "info", true);
        layout.render();
      },
      select: (title, items, initial) =>
        layout.ask<string>((done) => new SelectDialog({ title, items, ...(initial ? { initial } : {}), onDone: done })),
      input: (title, initial) => layout.ask<string>((done) => new InputDialog(title, done, initial)),
      reloadChat: () => {
        this.showConversation();
        layout.render();
      },
      refreshInfo: () => this.refreshInfo(),
      setEditorText: (text) => layout.editor.setText(text),
      prompt: (text) => void this.prompt(text),
      refreshCommands: () => this.refreshCommands(),
      exit: () => this.exit(),
    };
  }
}

/** The notification's text: how the run ended and how long it took. */
function finishMessage(reason: string | undefined, durationMs: number): string {
  const seconds = Math.round(durationMs / 1000);
  const how = reason === "stop" || reason === undefined ? "finished" : `stopped (${reason})`;
  return `gyre ${how} after ${seconds}s`;
}
