import { describe, expect, it } from "vitest";
import { parsePackageSource } from "./package-source.js";

describe("parsePackageSource", () => {
  it("turns npm names, versions and tarballs into npm specs", () => {
    expect(parsePackageSource("npm:@me/ext@1.2.0", "/w").spec).toBe("@me/ext@1.2.0");
    expect(parsePackageSource("npm:ext", "/w").spec).toBe("ext");
    expect(parsePackageSource("npm:./ext-1.0.0.tgz", "/w").spec).toBe("/w/ext-1.0.0.tgz");
  });

  it("turns git URLs with refs into git+ specs", () => {
    expect(parsePackageSource("git:file:///tmp/repo@v1", "/w").spec).toBe("git+file:///tmp/repo#v1");
    expect(parsePackageSource("git:https://example.com/me/ext.git", "/w").spec).toBe(
      "git+https://example.com/me/ext.git",
    );
    expect(parsePackageSource("git:git@example.com:me/ext.git@main", "/w").spec).toBe(
      "git@example.com:me/ext.git#main",
    );
  });

  it("resolves local paths and refuses anything else with a sentence", () => {
    expect(parsePackageSource("../pkg", "/w/a")).toMatchObject({ kind: "path", spec: "/w/pkg" });
    expect(() => parsePackageSource("ext", "/w")).toThrow(/not a package source/);
    expect(() => parsePackageSource("npm:not a name", "/w")).toThrow(/not an npm package name/);
  });
});
