/**
 * The words after `/review` (TUI and ACP, docs/review.md): `--base <ref>` or `--uncommitted`, and
 * the rest as the focus. One parser so both front ends accept and refuse the same input.
 */
export type ReviewArgs = { base?: string; uncommitted?: boolean; focus?: string };

export function parseReviewArgs(args: string): ReviewArgs | { error: string } {
  const words = args.trim().split(/\s+/).filter(Boolean);
  let base: string | undefined;
  const at = words.indexOf("--base");
  if (at !== -1) {
    base = words[at + 1];
    if (base === undefined || base.startsWith("-"))
      return { error: "/review --base needs a ref, e.g. /review --base main." };
    words.splice(at, 2);
  }
  const uncommitted = words.includes("--uncommitted");
  if (uncommitted && base !== undefined) return { error: "/review takes --base <ref> or --uncommitted, not both." };
  const focus = words.filter((word) => word !== "--uncommitted").join(" ");
  return {
    ...(base !== undefined ? { base } : {}),
    ...(uncommitted ? { uncommitted } : {}),
    ...(focus ? { focus } : {}),
  };
}
