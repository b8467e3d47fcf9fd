/**
 * What `gyre install` accepts, and the npm spec each becomes: `npm:<pkg>[@version]` (a registry
 * name, or `npm:` followed by a tarball path), `git:<url>[@ref]` (any URL git clones, file://
 * included), or a local folder or tarball path. Everything is installed by npm into a prefix, so
 * dependencies, `gyre list` and `gyre update` work the same for all three.
 */
import { isAbsolute, resolve } from "node:path";

export type PackageSource = { kind: "npm" | "git" | "path"; spec: string; text: string };

/** Parses `text` (relative paths against `cwd`); throws an Error with a sentence when it is none of the three. */
export function parsePackageSource(text: string, cwd: string): PackageSource {
  if (text.startsWith("npm:")) {
    const rest = text.slice(4);
    if (!rest) throw new Error("npm: needs a package name, e.g. npm:my-gyre-extension@1.2.0.");
    if (looksLikePath(rest)) return { kind: "npm", spec: resolve(cwd, rest), text };
    if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^\s@/]+)?$/i.test(rest))
      throw new Error(`${rest} is not an npm package name (with an optional @version).`);
    return { kind: "npm", spec: rest, text };
  }
  if (text.startsWith("git:")) {
    const rest = text.slice(4);
    // A ref is an @ after the last slash; git@host:path URLs keep their @.
    const slash = rest.lastIndexOf("/");
    const at = rest.lastIndexOf("@");
    const [url, ref] = at > slash && slash >= 0 ? [rest.slice(0, at), rest.slice(at + 1)] : [rest, undefined];
    if (!url) throw new Error("git: needs a repository URL, e.g. git:https://example.com/me/ext.git@v1.");
    const base = /^[a-z+]+:\/\//i.test(url) || url.includes("@") ? url : resolve(cwd, url);
    const prefixed =
      base.startsWith("git+") || base.startsWith("git@") ? base : `git+${/^\//.test(base) ? `file://${base}` : base}`;
    return { kind: "git", spec: ref ? `${prefixed}#${ref}` : prefixed, text };
  }
  if (looksLikePath(text)) return { kind: "path", spec: resolve(cwd, text), text };
  throw new Error(`${text} is not a package source; use npm:<name>[@version], git:<url>[@ref] or a local path.`);
}

function looksLikePath(text: string): boolean {
  return isAbsolute(text) || text.startsWith("./") || text.startsWith("../") || text === "." || text.endsWith(".tgz");
}
