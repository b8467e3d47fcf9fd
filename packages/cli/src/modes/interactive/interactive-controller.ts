import {
  type AgentSession,
  SessionBusyError,
  type SessionEvent,
  type SessionOp,
  type SessionOpResult,
  type SessionOpType,
} from "../../core/agent-session.js";
import { describeConnected, describeConnectingServers, describeServerState } from "../../core/mcp/describe-status.js";
import { QuickSwitch, type ScopedModel } from "../model-cycle.js";
import { describeRunFailure } from "../run-outcome.js";
import { attachFiles, describeAttachment } from "./attachments.js";
import { compactionNotice } from "./chat-view.js";
import { FileAutocompleteProvider } from "./file-autocomplete.js";
import { FinishNotifier } from "./finish-notifier.js";
import { readGitBranch } from "./git-branch.js";
import { defaultKeybindings, type Keybindings } from "./keybindings.js";
import { installKeyHandlers } from "./keys.js";
import type { Layout } from "./layout.js";
import { InputDialog, SelectDialog } from "./pickers/select-dialog.js";
import { hasPlanReady, offerToStartEditing } from "./plan-ready.js";
import { RunProgress, spinner } from "./run-progress.js";
import { parseShellInput, runShellInput, type ShellInput, shellRecordsOf, shellStatus } from "./shell-input.js";
import { parseSlashCommand, slashCommands } from "./slash-commands/index.js";
import { parseMemoryInput, rememberInput } from "./slash-commands/memory-command.js";
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
  /** Between the loop's `agent_start` and `agent_end` (the live status line shows it). */
  private agentRunning = false;

  private readonly switcher: QuickSwitch;
  private readonly notifier: FinishNotifier;

  constructor(
    session: AgentSession,
    private readonly layout: Layout,
    private readonly options: { modelScope?: readonly ScopedModel[]; keybindings?: Keybindings } = {},
  ) {
    this.session = session;
    this.switcher = new QuickSwitch(session, {
      startupModel: session.info.startupModel,
      scope: options.modelScope,
      env: process.env,
    });
    const { settings } = session.info;
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
    this.runtimeCommands = listRuntimeCommands(session, new Set(slashCommands.map((command) => command.name)));
    this.context = this.createCommandContext();
  }

  /** Starts the UI; resolves with the exit code once the user leaves. */
  start(options: { initialPrompt?: string; resume?: boolean }): Promise<number> {
    const { layout, session } = this;
    const exited = new Promise<number>((resolve) => {
      this.exitResolve = resolve;
    });
    this.showConversation();
    const { info } = session;
    layout.todos.set([...session.todos()]);
    for (const notice of info.notices) layout.chat.addNotice(notice.text, "warning");
    const statuses = session.mcpStatuses();
    const connecting = describeConnectingServers(statuses);
    if (connecting) layout.chat.addNotice(connecting, "info");
    // A server that connected or failed while the screen was being set up said so to no one yet
    // (its news came before anyone listened): say it now, in the words it would have used.
    for (const status of statuses) {
      const told = info.notices.some((notice) => notice.text.includes(`MCP server "${status.name}"`));
      if (status.state === "failed" && !told)
        layout.chat.addNotice(`MCP server "${status.name}" ${describeServerState(status)}.`, "warning");
      if (status.state === "connected" && !told)
        layout.chat.addNotice(describeConnected(status.name, status.toolCount), "info");
    }
    session.subscribe((event) => this.onEvent(event));
    installKeyHandlers(
      layout,
      {
        isRunning: () => session.state.isRunning,
        abort: () => this.abort(),
        followUp: (text) => void session.submit({ type: "follow_up", text }),
        exit: () => this.exit(),
        notify: (text) => layout.status.set(style.gray(text)),
        cycleModel: (direction) => void this.quickSwitch(() => this.switcher.cycleModel(direction)),
        selectModel: () => void this.runCommand("model", ""),
        cycleThinking: () => void this.quickSwitch(() => this.switcher.cycleThinking()),
        cyclePermissionMode: () => void this.cyclePermissionMode(),
      },
      this.options.keybindings,
    );
    void this.refreshSandbox();
    this.refreshCommands();
    layout.editor.onSubmit = (text) => void this.submit(text);
    layout.editor.attachFrom = info.cwd;
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
    this.runtimeCommands.splice(0, this.runtimeCommands.length, ...listRuntimeCommands(this.session, builtIn));
    const names = [...slashCommands, ...this.runtimeCommands].map(({ name, description }) => ({ name, description }));
    this.layout.editor.setAutocompleteProvider(
      new FileAutocompleteProvider(names, this.session.info.cwd, this.session.mcpResources),
    );
  }

  /**
   * Handles the editor's text: `!cmd`, a slash command, or a prompt. The session decides what
   * happens while it is busy: a prompt steers the run, an extension command runs at once, the
   * rest wait for a run that is only being written away and are refused while the agent works.
   */
  async submit(raw: string): Promise<void> {
    const typed = raw.trim();
    if (!typed) return;
    // History keeps the chips (they stay known); everything after sees the paths they stand for.
    this.layout.editor.addToHistory(typed);
    const text = this.layout.editor.chips.expand(typed);
    const shell = parseShellInput(text);
    if (shell) return this.runShell(shell);
    const memory = parseMemoryInput(text);
    if (memory !== undefined) return rememberInput(memory, this.context).finally(() => this.layout.render());
    const command = parseSlashCommand(text);
    const runtimeCommand = command && this.findRuntimeCommand(command.name);
    if (command && !runtimeCommand) return this.runCommand(command.name, command.args);
    if (command) return this.prompt(text, { type: "command", name: command.name, args: command.args });
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

  /** A prompt (or a template, skill or extension command) through the session; the run's end is reported here. */
  private async prompt(text: string, command?: Extract<SessionOp, { type: "command" }>): Promise<void> {
    const { session } = this;
    const startedAt = Date.now();
    const startedInPlanMode = session.state.permissionMode === "plan";
    try {
      let result: SessionOpResult<"prompt">;
      if (command) result = await this.submitOp(command, `/${command.name}`);
      else {
        // Templates and commands get their arguments as typed; prompts get the files they name.
        const attached = await attachFiles(text, session.info.cwd);
        for (const problem of attached.problems) this.notify(problem, "warning");
        for (const attachment of attached.attachments) this.notify(describeAttachment(attachment));
        result = await session.submit({
          type: "prompt",
          text: attached.text,
          ...(attached.images ? { images: attached.images } : {}),
          whileBusy: "steer",
        });
      }
      // Steered into the run in progress (the pending line shows it): that run reports its end.
      if ("delivered" in result) return;
      // A limit or a loop ended the run (the user said stop at the pause): say which.
      if (result.reason === "budget" || result.reason === "loop")
        this.notify(`Stopped: ${describeRunFailure(session, result.reason)}`, "warning");
    } catch (error) {
      if (error instanceof SessionBusyError) return this.notify(error.message, "warning");
      this.notify(`The run failed: ${(error as Error).message}`, "error");
    }
    this.notifier.runEnded(Date.now() - startedAt, finishMessage(session.state.endReason, Date.now() - startedAt));
    this.refreshInfo();
    this.layout.render();
    if (hasPlanReady(session, { startedInPlanMode, reason: session.state.endReason }))
      void offerToStartEditing(this.planReadyStep());
  }

  private planReadyStep() {
    const { layout } = this;
    return {
      session: this.session,
      select: (title: string, items: { value: string; label: string }[]) =>
        layout.ask<string>((done) => new SelectDialog({ title, items, onDone: done })),
      notify: (text: string) => this.notify(text),
      prompt: (text: string) => this.prompt(text),
    };
  }

  /** Submits `op`; when it has to wait for the run's end more than a second, says so. */
  private async submitOp<T extends SessionOpType>(op: Extract<SessionOp, { type: T }>, what: string) {
    let slow: NodeJS.Timeout | undefined;
    const onQueued = () => {
      slow = setTimeout(() => this.notify(`${what} runs once the agent finishes (Esc stops the agent).`), 1000);
    };
    try {
      return await this.session.submit(op, { onQueued });
    } finally {
      clearTimeout(slow);
    }
  }

  /** `!cmd` / `!!cmd`: typed while the agent works, it runs (and is drawn) after the run's answer; Esc stops it. */
  private async runShell(input: ShellInput): Promise<void> {
    if (!input.command)
      return this.notify(
        "Type a command after ! (or after !! to keep it out of the context), e.g. !git status.",
        "warning",
      );
    const { layout, session } = this;
    try {
      // Its output belongs after the run's answer in the conversation, so it waits its turn.
      await session.waitTurn(`!${input.command}`, {
        whileBusy: "queue",
        onQueued: () => this.notify(`!${input.command} runs once the agent finishes (Esc stops the agent).`),
      });
      const startedAt = Date.now();
      layout.status.setLive((frame) => shellStatus(input.command, startedAt, spinner[frame % spinner.length] ?? ""));
      await runShellInput(input, { session, chat: layout.chat, render: () => layout.render() });
    } catch (error) {
      this.notify(`The shell command failed: ${(error as Error).message}`, "error");
    } finally {
      layout.status.set("");
      this.refreshInfo();
    }
  }

  /** A model or thinking switch from a key: between runs only (a run being written away first ends); the footer and status line show it. */
  private async quickSwitch(change: () => Promise<string>): Promise<void> {
    try {
      this.layout.status.set(style.gray(await change()));
      this.refreshInfo();
    } catch (error) {
      if (!(error instanceof SessionBusyError)) return this.notify((error as Error).message, "error");
      this.layout.status.set(style.yellow("Switch the model or thinking level once the agent is idle (or press Esc)."));
      this.layout.render();
    }
  }

  /** Esc: stops the run; queued messages go back into the editor rather than being lost. */
  private abort(): void {
    const { layout, session } = this;
    const queued = session.takeQueued();
    if (queued.length > 0) {
      const current = layout.editor.getText();
      layout.editor.setText([...queued, ...(current ? [current] : [])].join("\n"));
    }
    // The abort reaches every subagent through the task tool's signal; their lines say so.
    layout.subagents.markAborting();
    void session.submit({ type: "abort" });
    layout.status.set(style.yellow("aborting…"));
  }

  /** A runtime command by the name typed (`/skill:x` included); built-in names never match. */
  private findRuntimeCommand(name: string): RuntimeCommand | undefined {
    return this.runtimeCommands.find((command) => command.name.toLowerCase() === name);
  }

  /** A built-in slash command; one that changes the session waits for its turn as the session decides. */
  private async runCommand(name: string, args: string): Promise<void> {
    const command = slashCommands.find((candidate) => candidate.name === name);
    if (!command) return this.notify(`Unknown command /${name}; type /help for the list.`, "error");
    try {
      if (!command.allowWhileRunning) {
        let slow: NodeJS.Timeout | undefined;
        const notify = () => this.notify(`/${name} runs once the agent finishes (Esc stops the agent).`);
        await this.session
          .waitTurn(`/${name}`, { onQueued: () => (slow = setTimeout(notify, 1000)) })
          .finally(() => clearTimeout(slow));
      }
      await command.run(args, this.context);
    } catch (error) {
      if (error instanceof SessionBusyError) this.notify(error.message, "warning");
      else this.notify(`/${name} failed: ${(error as Error).message}`, "error");
    } finally {
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
    switch (event.type) {
      case "message_start":
        // After a retry countdown, the answer is coming: back to the live line.
        if (event.message.role === "assistant") this.showWorking();
        return;
      case "queue_update":
        layout.pending.set(pendingOf(event));
        layout.render();
        return;
      case "permission_mode_changed":
        void this.refreshSandbox();
        return;
      case "message_update":
        // The first delta after a retry countdown: the answer is streaming again.
        if (!layout.status.isLive) this.showWorking();
        return;
      case "agent_start":
        this.agentRunning = true;
        this.progress.start();
        this.showWorking();
        return;
      case "agent_end":
        this.agentRunning = false;
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
        if (this.agentRunning) this.showWorking();
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

  /**
   * Shift+Tab: default → plan → default. Plan mode withholds write/edit and makes bash read-only.
   * Switching restarts the sandbox, so during a run the session holds the switch until it ends
   * (pressed twice, the two switches cancel out).
   */
  private async cyclePermissionMode(): Promise<void> {
    try {
      const { mode } = await this.session.submit(
        { type: "set_mode", mode: "toggle" },
        { onQueued: () => this.notify("The permission mode changes once the run ends (Esc stops it).", "warning") },
      );
      this.notify(
        mode === "plan"
          ? "Plan mode: bash is read-only and write/edit are withheld; Shift+Tab leaves it."
          : "Plan mode left: the tools are back and the plan stays in the conversation.",
      );
    } catch (error) {
      this.notify((error as Error).message, "error");
    }
  }

  private async refreshSandbox(): Promise<void> {
    this.sandboxText = await this.session.describeSandbox().catch((error: Error) => `unknown (${error.message})`);
    this.refreshInfo();
  }

  private refreshInfo(): void {
    const { session, layout } = this;
    const { cwd } = session.info;
    const { model, thinkingLevel, sessionName, stats, permissionMode } = session.state;
    layout.header.setModel(`${model.provider}/${model.id}`);
    layout.footer.setInfo({
      cwd,
      home: process.env.HOME,
      sessionName,
      stats,
      contextWindow: model.contextWindow,
      model: `${model.provider}/${model.id}`,
      thinkingLevel,
      reasoning: model.reasoning,
      gitBranch: readGitBranch(cwd),
      permissionMode,
      sandbox: this.sandboxText,
    });
    layout.render();
  }

  private createCommandContext(): CommandContext {
    const { layout } = this;
    return {
      session: this.session,
      layout,
      sessionsDir: this.session.info.sessionsDir,
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

/** What the pending panel lists: the user's own queued texts and the prompts waiting their turn. */
function pendingOf(event: Extract<SessionEvent, { type: "queue_update" }>) {
  return [
    ...event.steering
      .filter((item) => item.source === "user")
      .map((item) => ({ kind: "steer" as const, text: item.text })),
    ...event.followUp
      .filter((item) => item.source === "user")
      .map((item) => ({ kind: "followUp" as const, text: item.text })),
    ...event.waiting.flatMap((item) =>
      item.type === "prompt" ? [{ kind: "followUp" as const, text: item.label }] : [],
    ),
  ];
}
