/** The decision to compact before a model call. */

/** Default room kept free for the model's answer and the next tool results. */
export const DEFAULT_RESERVE_TOKENS = 16_384;
/** Default amount of recent conversation kept as it is by a compaction. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;

export type ShouldCompactInput = {
  /** Current context size in tokens (estimated or from the last usage). */
  contextTokens: number;
  model: { contextWindow: number };
  /** Tokens to keep free below the window. */
  reserveTokens: number;
};

/** Whether the context exceeds the model's window minus the reserve. Pure; never throws. */
export function shouldCompact({ contextTokens, model, reserveTokens }: ShouldCompactInput): boolean {
  if (!(model.contextWindow > 0)) return false;
  return contextTokens > model.contextWindow - Math.max(0, reserveTokens);
}

/**
 * Whether a run must pause after this turn to compact before its next model call: the turn
 * asked for tools (the run goes on), and the context the next call sends — the turn's reported
 * size plus the tool results it adds — would exceed the window minus the reserve. Pure.
 */
export function shouldCompactAfterTurn(input: {
  /** Tokens the turn's call used (input and output), 0 when unknown. */
  turnTokens: number;
  /** Estimated tokens of the turn's tool results. */
  toolResultTokens: number;
  /** Whether the turn ran tools (only then does the run call the model again). */
  continues: boolean;
  model: { contextWindow: number };
  reserveTokens: number;
}): boolean {
  if (!input.continues || !(input.turnTokens > 0)) return false;
  return shouldCompact({
    contextTokens: input.turnTokens + input.toolResultTokens,
    model: input.model,
    reserveTokens: input.reserveTokens,
  });
}

/**
 * The reserve and keep-recent sizes for a window: the defaults, scaled down for small windows
 * (a quarter and 30 % of the window at most) so a 16k model is not compacted before every
 * prompt. A size set in the settings is used as it is.
 */
export function compactionSizes(
  contextWindow: number,
  settings: { reserveTokens?: number; keepRecentTokens?: number } = {},
): { reserveTokens: number; keepRecentTokens: number } {
  const window = contextWindow > 0 ? contextWindow : Number.POSITIVE_INFINITY;
  return {
    reserveTokens: settings.reserveTokens ?? Math.min(DEFAULT_RESERVE_TOKENS, Math.floor(window * 0.25)),
    keepRecentTokens: settings.keepRecentTokens ?? Math.min(DEFAULT_KEEP_RECENT_TOKENS, Math.floor(window * 0.3)),
  };
}
