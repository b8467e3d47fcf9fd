/**
 * Glob matching with .gitignore-like semantics, used to filter `rg --files` output (ripgrep's own
 * --glob would override .gitignore, listing ignored files). A glob without "/" matches the file
 * name at any depth; one with "/" matches the path relative to the search directory.
 */

/** A predicate for relative paths ("/"-separated). Throws for an unbalanced "[" or "{". */
export function createGlobMatcher(glob: string): (relativePath: string) => boolean {
  const trimmed = glob.startsWith("/") ? glob.slice(1) : glob;
  const byName = !trimmed.includes("/");
  const regex = new RegExp(`^${globToRegExpSource(trimmed)}$`, "s");
  return (relativePath) => regex.test(byName ? relativePath.slice(relativePath.lastIndexOf("/") + 1) : relativePath);
}

/** Whether a glob can be applied to file names alone (so ripgrep file types can do it). */
export function isNameGlob(glob: string): boolean {
  const rest = glob.startsWith("**/") ? glob.slice(3) : glob;
  return !rest.includes("/");
}

function globToRegExpSource(glob: string): string {
  let out = "";
  let index = 0;
  while (index < glob.length) {
    const char = glob[index] as string;
    if (glob.startsWith("**/", index)) {
      out += "(?:.*/)?";
      index += 3;
    } else if (glob.startsWith("**", index)) {
      out += ".*";
      index += 2;
    } else if (char === "*") {
      out += "[^/]*";
      index++;
    } else if (char === "?") {
      out += "[^/]";
      index++;
    } else if (char === "[") {
      const close = glob.indexOf("]", index + 2);
      if (close === -1) throw new Error(`The glob ${JSON.stringify(glob)} has an unclosed "[". Close it or escape it.`);
      const body = glob.slice(index + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      out += `[${negated ? "^" : ""}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, "\\$&")}]`;
      index = close + 1;
    } else if (char === "{") {
      const close = glob.indexOf("}", index);
      if (close === -1) throw new Error(`The glob ${JSON.stringify(glob)} has an unclosed "{". Close it or escape it.`);
      const alternatives = glob
        .slice(index + 1, close)
        .split(",")
        .map(globToRegExpSource);
      out += `(?:${alternatives.join("|")})`;
      index = close + 1;
    } else {
      out += char.replace(/[.+^$()|\\]/g, "\\$&");
      index++;
    }
  }
  return out;
}
