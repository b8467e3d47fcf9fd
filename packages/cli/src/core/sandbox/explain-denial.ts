/**
 * Turns what a command printed when the sandbox stopped it into a sentence the model can act on:
 * which path was read-only and why, or that the network is off, and what to do instead.
 */
import { isAbsolute, resolve, sep } from "node:path";

export type DenialContext = {
  cwd: string;
  writableRoots: readonly string[];
  protectedPaths: readonly string[];
  network: boolean;
  /** Hosts reachable through the proxy while the network is off. */
  allowedDomains?: readonly string[];
};

const READ_ONLY = /Read-only file system|EROFS/;
const NETWORK =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|network unreachable|getaddrinfo (ENOTFOUND|EAI_AGAIN)|ENETUNREACH|Failed to connect to|unable to resolve host/i;
const ESCALATE = "call bash again with escalate: true and a justification the user will read";

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The paths named on lines that report a read-only file system. */
export function findReadOnlyPaths(output: string, cwd: string): string[] {
  const paths = new Set<string>();
  for (const line of output.split("\n")) {
    if (!READ_ONLY.test(line)) continue;
    const quoted = /['‘"`]([^'’"`]+)['’"`]/.exec(line)?.[1];
    const bare = /([^\s:'"`]+)\s*:\s*(?:Read-only file system|EROFS)/.exec(line)?.[1];
    const path = quoted ?? bare;
    if (path) paths.add(isAbsolute(path) ? resolve(path) : resolve(cwd, path));
  }
  return [...paths];
}

/** A hint to append to the tool result, or undefined when nothing in the output looks like the sandbox. */
export function explainDenial(output: string, context: DenialContext): string | undefined {
  const hints: string[] = [];
  if (READ_ONLY.test(output)) {
    const roots = [...context.writableRoots, "/tmp (private to the sandbox)"].join(", ");
    const paths = findReadOnlyPaths(output, context.cwd);
    for (const path of paths.slice(0, 3)) {
      const guard = context.protectedPaths.find((protectedPath) => isInside(path, protectedPath));
      if (guard !== undefined) {
        hints.push(
          `${path} is under ${guard}, which the sandbox keeps read-only even inside the workspace (it can run code or change gyre's settings).`,
        );
      } else if (!context.writableRoots.some((root) => isInside(path, root))) {
        hints.push(`${path} is outside the writable roots (${roots}).`);
      }
    }
    if (hints.length === 0) hints.push(`A write was refused: only ${roots} are writable.`);
    hints.push(`To write there anyway, ${ESCALATE}; otherwise work inside the project.`);
  }
  const listed = context.allowedDomains ?? [];
  if (!context.network && listed.length > 0 && NETWORK.test(output)) {
    hints.push(
      `Networking is off in the sandbox except through gyre's proxy (HTTP_PROXY/HTTPS_PROXY, already set) to ${listed.join(", ")}. ` +
        `Use a tool that honours the proxy variables; for other hosts, ask the user to add them to sandbox.allowedDomains, or ${ESCALATE}.`,
    );
  } else if (!context.network && NETWORK.test(output)) {
    hints.push(
      `Networking is off in the sandbox. If the command needs the network, ${ESCALATE}, or ask the user to restart gyre with --allow-network.`,
    );
  }
  return hints.length === 0 ? undefined : `[sandbox] ${hints.join(" ")}`;
}

/** Explains the proxy's refusals during one command, or undefined when there were none. */
export function explainProxyRefusals(refusals: readonly { target: string; reason: string }[]): string | undefined {
  if (refusals.length === 0) return undefined;
  const shown = refusals.slice(0, 3).map((refusal) => `${refusal.target}: ${refusal.reason}`);
  const more = refusals.length > 3 ? ` (and ${refusals.length - 3} more)` : "";
  return (
    `[sandbox] The network proxy refused ${shown.join("; ")}${more}. Only the hosts in sandbox.allowedDomains are ` +
    `reachable; ask the user to add the host there if the task needs it, or ${ESCALATE}.`
  );
}
