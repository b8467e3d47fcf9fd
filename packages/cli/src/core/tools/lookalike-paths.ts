/**
 * Spellings of a path that look the same to a person but differ in bytes: what a model or a
 * user types for a file that exists. macOS names screenshots with U+202F before "AM"/"PM",
 * browsers and editors write U+00A0, file systems keep NFD accents (macOS) or NFC (Linux), and
 * curly apostrophes (U+2019) come from word processors and from models alike.
 */

const SPACES = /[\u00a0\u202f]/g;

/**
 * Other spellings of `path` to try, in order, when `path` itself does not exist; never
 * `path` itself, no duplicates. Each candidate must still pass the caller's policy checks.
 */
export function lookalikePaths(path: string): string[] {
  if (!/[ \u00a0\u202f'\u2019]|[^\x00-\x7f]/.test(path)) return [];
  const forms = new Set<string>();
  const spaced = [path, path.replace(SPACES, " "), path.replace(/ /g, "\u202f"), path.replace(/ /g, "\u00a0")];
  // Only a narrow no-break space before AM/PM is what macOS writes; keep that variant close.
  spaced.push(path.replace(/ (AM|PM)\b/g, "\u202f$1"));
  for (const spacing of spaced)
    for (const quoted of [spacing, spacing.replace(/'/g, "\u2019"), spacing.replace(/\u2019/g, "'")])
      for (const form of [quoted, quoted.normalize("NFC"), quoted.normalize("NFD")]) forms.add(form);
  forms.delete(path);
  return [...forms];
}
