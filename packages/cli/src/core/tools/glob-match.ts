/**
 * Glob matching with .gitignore-like semantics, used to filter `rg --files` output (ripgrep's own
 * --glob would override .gitignore, listing ignored files). A glob without "/" matches the file
 * name at any depth; one with "/" matches the path relative to the search directory. The syntax
 * is picomatch's with POSIX classes: `*`, `**`, `?`, `[a-z]`, `[!a-z]`, nested `{a,{b,c}}`,
 * backslash escapes and extglobs (`!(*.test).ts`, `@(a|b)`, `+(x)`); dotfiles match.
 */

/**
 * A predicate for relative paths ("/"-separated). Rejects, with one sentence for the model, a
 * glob with an unbalanced bracket, brace or parenthesis.
 */
export async function createGlobMatcher(glob: string): Promise<(relativePath: string) => boolean> {
  // picomatch loads on the first glob a tool is given, not at start-up.
  const { default: picomatch } = await import("picomatch");
  const trimmed = glob.startsWith("/") ? glob.slice(1) : glob;
  const byName = !trimmed.includes("/");
  let test: (path: string) => boolean;
  try {
    test = picomatch(trimmed, { dot: true, posix: true, strictBrackets: true });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/ - use .*$/, "");
    throw new Error(
      `The glob ${JSON.stringify(glob)} is not valid (${reason}); close it, or escape the character with a backslash.`,
    );
  }
  return (relativePath) => test(byName ? relativePath.slice(relativePath.lastIndexOf("/") + 1) : relativePath);
}

/**
 * Whether a glob can be applied to file names alone by ripgrep's own file types: no "/", and
 * none of the syntax ripgrep's globs read differently (escapes, extglobs, nested braces).
 */
export function isNameGlob(glob: string): boolean {
  const rest = glob.startsWith("**/") ? glob.slice(3) : glob;
  if (rest.includes("/") || rest.includes("\\") || /[!@+*?]\(/.test(rest)) return false;
  return !/\{[^}]*\{/.test(rest);
}
