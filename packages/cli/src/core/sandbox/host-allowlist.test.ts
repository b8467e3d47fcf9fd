import { describe, expect, it } from "vitest";
import { createHostAllowlist, parseAuthority, parseHost } from "./host-allowlist.js";

describe("createHostAllowlist", () => {
  const list = createHostAllowlist(["registry.npmjs.org", "10.0.0.5", "*.example.com", "[::1]"]);
  const allowed = (host: string) => list.check(host).allowed;

  it("matches names exactly, case-insensitively, with one trailing dot", () => {
    expect(allowed("registry.npmjs.org")).toBe(true);
    expect(allowed("REGISTRY.npmjs.ORG")).toBe(true);
    expect(allowed("registry.npmjs.org.")).toBe(true);
    expect(allowed("registry.npmjs.org..")).toBe(false);
  });

  it("never matches by suffix or prefix", () => {
    for (const host of ["evil.registry.npmjs.org", "registry.npmjs.org.evil.com", "xregistry.npmjs.org", "npmjs.org"]) {
      expect(allowed(host), host).toBe(false);
    }
  });

  it("refuses user info, ports, paths and odd characters in a host", () => {
    for (const host of [
      "registry.npmjs.org@evil.com",
      "registry.npmjs.org:443",
      "registry.npmjs.org/x",
      "a b",
      "é.com",
    ]) {
      expect(allowed(host), host).toBe(false);
    }
  });

  it("allows IP literals only when listed, in their canonical form", () => {
    expect(allowed("10.0.0.5")).toBe(true);
    expect(allowed("10.0.0.6")).toBe(false);
    for (const disguised of ["10.5", "0xa.0.0.5", "167772165", "012.0.0.5"])
      expect(allowed(disguised), disguised).toBe(false);
    expect(allowed("[0:0::1]")).toBe(true);
    expect(allowed("::2")).toBe(false);
  });

  it("lets *.domain match names below it but not the domain itself", () => {
    expect(allowed("cdn.example.com")).toBe(true);
    expect(allowed("a.b.example.com")).toBe(true);
    expect(allowed("example.com")).toBe(false);
    expect(allowed("evilexample.com")).toBe(false);
  });

  it("says which host was refused and what is listed", () => {
    expect(list.check("Evil.COM.")).toEqual({
      allowed: false,
      host: "evil.com",
      reason: "the host evil.com is not in sandbox.allowedDomains (registry.npmjs.org, 10.0.0.5, *.example.com, [::1])",
    });
  });

  it("reports entries that are not hosts", () => {
    expect(createHostAllowlist(["ok.com", "bad host", "*.1.2.3.4"]).invalid).toHaveLength(2);
  });
});

describe("parseHost and parseAuthority", () => {
  it("reads host:port and bracketed IPv6, nothing else", () => {
    expect(parseAuthority("example.com:443")).toEqual({ host: "example.com", port: 443 });
    expect(parseAuthority("[::1]:8080")).toEqual({ host: "[::1]", port: 8080 });
    for (const bad of ["example.com", "a@b.com:443", "example.com:0", "example.com:70000", "x.com:443/path"]) {
      expect(parseAuthority(bad), bad).toBeUndefined();
    }
  });

  it("tells names from IP literals", () => {
    expect(parseHost("127.0.0.1")).toEqual({ ok: true, host: "127.0.0.1", kind: "ip" });
    expect(parseHost("Example.com.")).toEqual({ ok: true, host: "example.com", kind: "name" });
  });
});
