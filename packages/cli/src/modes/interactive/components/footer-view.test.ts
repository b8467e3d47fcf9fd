import { describe, expect, it } from "vitest";
import { computeSessionStats } from "../../../core/session-stats.js";
import { type FooterInfo, formatFooter } from "./footer-view.js";

const info: FooterInfo = {
  cwd: "/home/ada/project",
  home: "/home/ada",
  sessionName: undefined,
  stats: computeSessionStats([]),
  contextWindow: 128_000,
  model: "openai/gpt-4o",
  thinkingLevel: "off",
};

describe("formatFooter's safety part", () => {
  it("shows the sandbox level after the folder", () => {
    const [where] = formatFooter({ ...info, sandbox: "workspace-write, network off", permissionMode: "default" });
    expect(where).toBe("~/project · sandbox workspace-write, network off");
  });

  it("shows plan mode and how to leave it", () => {
    const [where] = formatFooter({
      ...info,
      gitBranch: "main",
      sandbox: "read-only, network off",
      permissionMode: "plan",
    });
    expect(where).toBe("~/project (main) · ⏸ plan mode (shift+tab to leave) · sandbox read-only, network off");
  });

  it("shows nothing of safety until the level is known", () => {
    expect(formatFooter(info)[0]).toBe("~/project");
  });
});
