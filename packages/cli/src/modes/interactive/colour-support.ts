/**
 * Whether the interactive UI may colour its text, by the conventions users set in their shell:
 * `FORCE_COLOR` (any value but "0"/"false") forces colour on, `FORCE_COLOR=0` turns it off, and
 * a non-empty `NO_COLOR` (no-color.org) turns it off. Text attributes (bold, dim, italic) stay:
 * they are not colour and carry meaning (a dim hint, a bold heading).
 */
export function colourEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  return !env.NO_COLOR;
}
