/**
 * What core code (extensions, the trust prompt) may ask of whichever mode is running. The
 * interactive mode answers in the terminal, RPC forwards to the client (`ui_request` /
 * `ui_response`), print and JSON modes fail closed (`confirm` → false, others → undefined).
 */
export type UserInterface = {
  /** Whether a person can answer right now (false in print/JSON mode). */
  readonly interactive: boolean;
  confirm(request: { title: string; message?: string; signal?: AbortSignal }): Promise<boolean>;
  select(request: { title: string; options: string[]; signal?: AbortSignal }): Promise<string | undefined>;
  input(request: { title: string; placeholder?: string; signal?: AbortSignal }): Promise<string | undefined>;
  /** A one-line status or notice (status lines, warnings). */
  notify(message: string, level?: "info" | "warning" | "error"): void;
  /**
   * Asks whether a tool call may run. Optional: a mode without it is asked through `select`
   * and `input` when interactive, and denied otherwise.
   */
  approve?(request: ApprovalRequest & { signal?: AbortSignal }): Promise<ApprovalAnswer>;
  /** Resolves the waiting `approve` request `id` (the session's `approval_response` op); false when none waits. */
  answerApproval?(id: string, answer: ApprovalAnswer): boolean;
};

/** A tool call that needs the user's decision (docs/design/safety.md `approval_request`). */
export type ApprovalRequest = { toolCallId: string; toolName: string; args: Record<string, unknown>; reason: string };

/** The user's decision; `reason` (with a deny) is passed on to the model. */
export type ApprovalAnswer = {
  decision: "allow" | "allow_always" | "deny";
  reason?: string;
  /** With allow_always: the rules the user chose to save (default: the suggested ones). */
  rules?: string[];
  /** With deny: the user pressed Esc, so the whole run stops. */
  stop?: boolean;
};

/** The headless interface: nobody to ask, so every question is declined. */
export function createHeadlessUserInterface(onNotify?: (message: string) => void): UserInterface {
  return {
    interactive: false,
    confirm: async () => false,
    select: async () => undefined,
    input: async () => undefined,
    notify: (message) => onNotify?.(message),
  };
}
