/**
 * Makes model and tool output inert before it reaches the terminal: colour codes are dropped and
 * every other control sequence (OSC 52 clipboard writes, title changes, clear-screen, cursor moves)
 * is shown as visible characters instead of being executed.
 */

// SGR (colour) sequences carry no risk but would fight the UI's own styling, so they go entirely.
const sgrPattern = /\x1b\[[0-9;:]*m/g;
// C0 controls except tab and newline, DEL, and the 8-bit C1 controls (CSI, OSC, … as single bytes).
const controlPattern = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const tabStop = "    ";

/**
 * Returns `text` safe to print: no byte of it can change terminal state. Newlines stay, tabs
 * become spaces, a carriage return keeps only what a terminal would show (the text after it),
 * and other control characters become their visible Unicode "control picture" (ESC → ␛).
 */
export function sanitizeText(text: string): string {
  // Fast path: most answers hold no control character at all.
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text) && !text.includes("\t")) return text;
  let result = text.replace(sgrPattern, "").replace(/\r\n/g, "\n");
  if (result.includes("\r")) result = result.split("\n").map(keepAfterLastCarriageReturn).join("\n");
  return result.replace(/\t/g, tabStop).replace(controlPattern, toControlPicture);
}

function keepAfterLastCarriageReturn(line: string): string {
  const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
  const at = trimmed.lastIndexOf("\r");
  return at < 0 ? trimmed : trimmed.slice(at + 1);
}

function toControlPicture(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return "\ufffd";
}
