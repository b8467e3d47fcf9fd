import { describe, expect, it } from "vitest";
import { explainDenial, explainProxyRefusals, findReadOnlyPaths } from "./explain-denial.js";

const context = {
  cwd: "/w",
  writableRoots: ["/w"],
  protectedPaths: ["/w/.git/hooks", "/w/.gyre"],
  network: false,
};

describe("explainDenial", () => {
  it("names a path outside the writable roots and the escalate route", () => {
    const hint = explainDenial("touch: cannot touch '/home/u/.bashrc': Read-only file system\n", context);
    expect(hint).toContain("/home/u/.bashrc is outside the writable roots (/w, /tmp (private to the sandbox))");
    expect(hint).toContain("escalate: true and a justification");
  });

  it("names the protected path a write inside the workspace hit", () => {
    const hint = explainDenial("bash: line 1: .git/hooks/pre-commit: Read-only file system\n", context);
    expect(hint).toContain("/w/.git/hooks/pre-commit is under /w/.git/hooks, which the sandbox keeps read-only");
  });

  it("explains network failures only when networking is off", () => {
    const output = "curl: (6) Could not resolve host: example.com\n";
    expect(explainDenial(output, context)).toContain("Networking is off in the sandbox");
    expect(explainDenial(output, { ...context, network: true })).toBeUndefined();
  });

  it("points at the proxy and its hosts when allowedDomains are set", () => {
    const hint = explainDenial("curl: (6) Could not resolve host: example.com\n", {
      ...context,
      allowedDomains: ["registry.npmjs.org"],
    });
    expect(hint).toContain("except through gyre's proxy (HTTP_PROXY/HTTPS_PROXY, already set) to registry.npmjs.org");
  });

  it("stays silent on ordinary failures", () => {
    expect(explainDenial("grep: nothing: No such file or directory\n", context)).toBeUndefined();
  });
});

describe("findReadOnlyPaths", () => {
  it("reads quoted and bare paths, resolved against the cwd", () => {
    const output =
      "mkdir: cannot create directory ‘/etc/x’: Read-only file system\nsh: 1: out.txt: Read-only file system\n";
    expect(findReadOnlyPaths(output, "/w")).toEqual(["/etc/x", "/w/out.txt"]);
  });
});

describe("explainProxyRefusals", () => {
  it("names up to three refused targets and counts the rest", () => {
    const refusals = ["a", "b", "c", "d"].map((host) => ({ target: `${host}.test:443`, reason: `${host} not listed` }));
    const hint = explainProxyRefusals(refusals);
    expect(hint).toContain("The network proxy refused a.test:443: a not listed; b.test:443");
    expect(hint).toContain("(and 1 more)");
    expect(explainProxyRefusals([])).toBeUndefined();
  });
});
