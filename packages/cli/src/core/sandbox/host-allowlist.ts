/**
 * Which hosts the sandbox's network proxy lets through (`sandbox.allowedDomains`). A host is
 * checked as the exact name the proxy will connect to, so what is checked is what is reached:
 * names are compared case-insensitively with one trailing dot dropped, never by suffix
 * (`evil.com.allowed.com` and `allowed.com.evil.com` are not `allowed.com`); user info
 * (`allowed.com@evil.com`) and anything that is not a plain DNS name or IP literal is refused; IP
 * literals, in any of the forms a resolver accepts (`127.1`, `0x7f.0.0.1`, `2130706433`), pass only
 * when listed. `*.example.com` allows every name below example.com, but not example.com itself.
 */
import { isIPv4, isIPv6 } from "node:net";

/** A host as the proxy will dial it, or why it is not one. */
export type ParsedHost = { ok: true; host: string; kind: "name" | "ip" } | { ok: false; reason: string };

/** The proxy's verdict on one host. */
export type HostVerdict = { allowed: true; host: string } | { allowed: false; host: string; reason: string };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** A last label a resolver reads as a number: a name ending in one is an IPv4 literal in disguise. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/** Parses a host (no port, IPv6 with or without brackets) into the form the proxy dials. */
export function parseHost(raw: string): ParsedHost {
  const text = raw.trim().toLowerCase();
  if (text.startsWith("[") && text.endsWith("]")) {
    const inner = text.slice(1, -1);
    if (!isIPv6(inner)) return { ok: false, reason: `${raw} is not a valid IPv6 address` };
    return { ok: true, host: canonicalIPv6(inner), kind: "ip" };
  }
  if (isIPv6(text)) return { ok: true, host: canonicalIPv6(text), kind: "ip" };
  const name = text.endsWith(".") ? text.slice(0, -1) : text;
  if (name === "" || name.length > 253) return { ok: false, reason: `"${raw}" is not a host name` };
  const labels = name.split(".");
  if (!labels.every((label) => LABEL.test(label))) {
    return { ok: false, reason: `"${raw}" is not a plain host name (only letters, digits, "-", "_" and dots)` };
  }
  if (NUMERIC_LABEL.test(labels[labels.length - 1] ?? "")) {
    if (!isIPv4(name)) return { ok: false, reason: `${raw} is an IP address in a non-standard form` };
    return { ok: true, host: name, kind: "ip" };
  }
  return { ok: true, host: name, kind: "name" };
}

function canonicalIPv6(address: string): string {
  // The URL parser is the standard's own IPv6 serialiser: "::0001" and "0:0::1" both become "::1".
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** An allowlist built from `sandbox.allowedDomains`; entries that are not hosts are reported, not used. */
export type HostAllowlist = {
  check(rawHost: string): HostVerdict;
  /** The entries as given, for messages. */
  entries: readonly string[];
  /** Entries that could not be used, with why. */
  invalid: readonly string[];
};

/** Builds the allowlist. Matching is exact, or by `*.` wildcard for names below a domain. */
export function createHostAllowlist(domains: readonly string[]): HostAllowlist {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const invalid: string[] = [];
  for (const entry of domains) {
    const wildcard = entry.trim().startsWith("*.");
    const parsed = parseHost(wildcard ? entry.trim().slice(2) : entry);
    if (!parsed.ok || (wildcard && parsed.kind === "ip")) {
      invalid.push(`${entry} (${parsed.ok ? "a wildcard needs a domain name" : parsed.reason})`);
    } else if (wildcard) suffixes.push(`.${parsed.host}`);
    else exact.add(parsed.host);
  }
  const listed = domains.join(", ") || "none";
  return {
    entries: domains,
    invalid,
    check(rawHost) {
      const parsed = parseHost(rawHost);
      if (!parsed.ok) return { allowed: false, host: rawHost, reason: parsed.reason };
      const { host } = parsed;
      if (exact.has(host)) return { allowed: true, host };
      if (parsed.kind === "name" && suffixes.some((suffix) => host.endsWith(suffix))) return { allowed: true, host };
      const what = parsed.kind === "ip" ? "the IP address" : "the host";
      return { allowed: false, host, reason: `${what} ${host} is not in sandbox.allowedDomains (${listed})` };
    },
  };
}

/**
 * Splits a CONNECT target (`host:port`, `[v6]:port`) into host and port, or undefined when it is
 * anything else (user info, a path, a missing or out-of-range port).
 */
export function parseAuthority(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]@/\\\s]+):([0-9]{1,5})$/.exec(target);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? "", port };
}
