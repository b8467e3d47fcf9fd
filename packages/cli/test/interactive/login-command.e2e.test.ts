import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGitHubServer } from "../auth/auth-servers.js";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stopGyres();
  for (const close of closers.splice(0)) await close();
});

describe("/login", () => {
  it("signs in to GitHub Copilot from the TUI: shows the code, stores the sign-in, names the way to switch", async () => {
    const github = await startGitHubServer({ slowDownInterval: 0.1 });
    closers.push(github.close);
    const { tmux, home } = await startGyre(() => ({ text: "unused" }), {
      env: { GYRE_COPILOT_AUTH_URL: github.url, GYRE_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token` },
    });
    await submit(tmux, "/login github-copilot");
    const screen = await tmux.waitFor("Signed in to GitHub Copilot");
    expect(screen).toContain("enter the code ABCD-1234");
    expect(screen).toMatch(/Switch with \/model\s+github-copilot\//);
    const stored = JSON.parse(await readFile(join(home, "auth.json"), "utf8"));
    expect(stored["github-copilot"].copilotToken).toBe("tid=copilot-1;exp=1");
    await submit(tmux, "/login claude");
    await tmux.waitFor("Claude Pro/Max sign-in is not offered");
  });
});
