import { describe, expect, it } from "vitest";
import { createSafeEnv, isAllowedEnvName } from "./safe-env.js";

describe("createSafeEnv", () => {
  it("passes the allowlisted variables and nothing else", () => {
    const allowed = {
      PATH: "/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      JAVA_HOME: "/opt/java",
    };
    const env = createSafeEnv({
      ...allowed,
      OPENAI_API_KEY: "sk-1",
      DATABASE_URL: "postgres://u:p@h/db",
      GH_PAT: "ghp_1",
      NPM_AUTH: "x",
      GITHUB_TOKEN: "t",
      AWS_SECRET_ACCESS_KEY: "s",
      SSH_AUTH_SOCK: "/tmp/agent",
      RANDOM_THING: "x",
    });
    expect(env).toEqual(allowed);
  });

  it("adds the caller's extra variables and never mutates its input", () => {
    const input = { PATH: "/bin" };
    expect(createSafeEnv(input, { TMPDIR: "/tmp" })).toEqual({ PATH: "/bin", TMPDIR: "/tmp" });
    expect(input).toEqual({ PATH: "/bin" });
  });

  it("refuses secret-looking names even when they match an allowed shape", () => {
    expect(isAllowedEnvName("TOKEN_HOME")).toBe(false);
    expect(isAllowedEnvName("CARGO_HOME")).toBe(true);
  });
});
