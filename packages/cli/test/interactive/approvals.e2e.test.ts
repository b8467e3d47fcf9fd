import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, submit } from "./gyre-in-tmux.js";

afterEach(stopGyres);

const command = "npm test 2>&1 | tail -30";
const askNpmTest = async ({ home }: { home: string }) => {
  await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { ask: ["bash(npm test:*)"] } }));
};

describe("the approval dialog", () => {
  it("stops the whole run on Esc: no further model call", async () => {
    const { tmux, server } = await startGyre(
      ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { text: "SHOULD-NOT-APPEAR" },
      { setup: askNpmTest },
    );
    await submit(tmux, "run the tests");
    await tmux.waitFor("Allow bash?");
    await tmux.send(["Escape"]);
    await tmux.waitFor("aborted");
    await tmux.waitFor((screen) => !screen.includes("working"));
    expect(server.requests).toHaveLength(1);
    expect(await tmux.capture()).not.toContain("Why not?");
  });

  it("saves the prefix rules of Yes, always to the user's settings of an untrusted folder and never asks again", async () => {
    const { tmux, server, home } = await startGyre(
      ({ index }) =>
        index < 2 ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { text: "all-done-here" },
      { setup: askNpmTest, height: 60 },
    );
    await submit(tmux, "run the tests twice");
    const dialog = await tmux.waitFor("Allow bash?");
    expect(dialog).toContain("Yes, always: bash(npm test:*) bash(tail:*)");
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("Rule(s) to save in");
    await tmux.send(["Enter"]);
    // The dialog says where the rules went (the path may wrap at the screen's edge).
    const said = await tmux.waitFor("Saved bash(npm test:*), bash(tail:*) to permissions.approved in");
    expect(said.replace(/\s+/g, "")).toContain(join(home, "settings.json").replace(/\s+/g, ""));
    await tmux.waitFor("all-done-here");
    expect(server.requests).toHaveLength(3);
    const saved = JSON.parse(await readFile(join(home, "settings.json"), "utf8"));
    expect(saved.permissions).toEqual({ ask: ["bash(npm test:*)"], approved: ["bash(npm test:*)", "bash(tail:*)"] });
  });

  it("declines with No without asking for a reason, and the run goes on", async () => {
    const { tmux, server } = await startGyre(
      ({ index }) =>
        index === 0 ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { text: "went-on-without-it" },
      { setup: askNpmTest },
    );
    await submit(tmux, "run the tests");
    await tmux.waitFor("Allow bash?");
    await tmux.send(["Down"]);
    await tmux.send(["Down"]);
    await tmux.send(["Enter"]);
    await tmux.waitFor("went-on-without-it");
    expect(await tmux.capture()).not.toContain("Why not?");
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("The user declined this call");
  });

  it("applies a deny rule added before /reload to the next call", async () => {
    const { tmux, server, cwd, home } = await startGyre(({ index }) =>
      index === 0 ? { toolCalls: [{ name: "read", arguments: { path: "package.json" } }] } : { text: "read-attempted" },
    );
    await writeFile(join(cwd, "package.json"), '{"name":"secret-name"}\n');
    await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["read(package.json)"] } }));
    await submit(tmux, "/reload");
    await tmux.waitFor("permissions changed");
    await submit(tmux, "read the package file");
    await tmux.waitFor("read-attempted");
    const sent = JSON.stringify(server.requests[1]?.body.messages);
    expect(sent).toContain("Denied by the permission rules");
    expect(sent).not.toContain("secret-name");
  });
});
