import { sanitizeText } from "../sanitize-text.js";

/** What a renderer gets once a call has finished without error. */
export type ToolResultView<TDetails> = {
  args: Record<string, unknown>;
  /** The result's text parts joined (images as a placeholder). */
  text: string;
  /** The result's details as this tool's; a field of another type is left out. */
  details: Partial<TDetails>;
  expanded: boolean;
  /** All lines when expanded; else the first (or last) few and a note of how many are hidden. */
  collapse(lines: string[], keep?: "head" | "tail"): string[];
};

/**
 * How the chat shows one tool's calls. Typed by the tool's details; `detailFields` says which
 * fields to read and their kinds, because details come from session files and extensions too
 * (an extension may replace a built-in tool), so nothing is assumed about their shape.
 */
export type ToolRenderer<TDetails = Record<string, unknown>> = {
  detailFields: { [K in keyof TDetails]?: "string" | "number" | "boolean" };
  /** The header's one-line summary of the arguments; undefined: the default summary. */
  describeArgs?(args: Record<string, unknown>): string | undefined;
  /** Whether the live output shows while the call runs (bash). */
  showsLiveOutput?: boolean;
  /** Where an error's text is kept when it collapses: the head, or the tail (command output). */
  errorKeeps?: "head" | "tail";
  renderResult(view: ToolResultView<TDetails>): string[];
};

/** A renderer whose details type is erased, for the name → renderer map. */
export type AnyToolRenderer = ToolRenderer<Record<string, unknown>>;

/**
 * Widens a typed renderer for the map. Sound because `ToolCallView` hands it only the fields
 * `detailFields` names, each checked by `readDetails` to have the kind it says.
 */
export function anyRenderer<TDetails>(renderer: ToolRenderer<TDetails>): AnyToolRenderer {
  return renderer as unknown as AnyToolRenderer;
}

/** The fields of `value` that `fields` names and that have the kind it says; the rest is dropped. */
export function readDetails(value: unknown, fields: Record<string, string | undefined>): Record<string, unknown> {
  if (typeof value !== "object" || value === null) return {};
  const source = value as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(fields)) {
    const field = source[name];
    if (kind !== undefined && typeof field === kind) picked[name] = field;
  }
  return picked;
}

/** Sanitised lines of `text`, trailing newlines dropped; none for empty text. */
export function splitLines(text: string): string[] {
  const clean = sanitizeText(text).replace(/\n+$/, "");
  return clean === "" ? [] : clean.split("\n");
}
