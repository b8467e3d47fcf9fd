import { describe, expect, it } from "vitest";
import type { RuntimeConfig } from "../runtime-config.js";
import { createSafety } from "./create-safety.js";

const safetyFor = (config: Partial<RuntimeConfig>, approval?: "ask" | "deny" | "allow") =>
  createSafety({
    config: { mode: "interactive", ...config } as RuntimeConfig,
    settings: approval ? { approval } : {},
    cwd: "/tmp",
    gyreHome: "/tmp/gyre-home-unused",
    env: { HOME: "/tmp" },
    ui: undefined,
    allowPaths: [],
  });

describe("the approval mode", () => {
  it("comes from --approval, then the approval setting, then the mode's default", () => {
    expect(safetyFor({}).approval).toBe("ask");
    expect(safetyFor({ mode: "print" }).approval).toBe("deny");
    expect(safetyFor({ mode: "print" }, "allow").approval).toBe("allow");
    expect(safetyFor({ approval: "deny" }, "allow").approval).toBe("deny");
  });
});
