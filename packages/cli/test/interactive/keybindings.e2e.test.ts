import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres, userTexts } from "./gyre-in-tmux.js";

afterEach(stopGyres);

describe("remapped editor keys", () => {
  it("sends with the key keybindings.json gives submit, and /help lists the keys in effect", async () => {
    const { tmux, server } = await startGyre(() => ({ text: "sent-by-alt-s" }), {
      height: 80,
      setup: async ({ home }) =>
        writeFile(
          join(home, "keybindings.json"),
          JSON.stringify({ submit: "alt+s", newLine: "enter", deleteWordBackward: "alt+w", selectModel: "f2" }),
        ),
    });
    await tmux.type("first line");
    // Enter is now a new line, not a send.
    await tmux.send(["Enter"]);
    await tmux.type("second doomedword");
    await tmux.send(["M-w"]);
    await tmux.type("line");
    await tmux.send(["M-s"]);
    await tmux.waitFor("sent-by-alt-s");
    expect(userTexts(server.requests[0]?.body)).toEqual([JSON.stringify("first line\nsecond line")]);

    await tmux.type("/help");
    await tmux.send(["M-s"]);
    const screen = await tmux.waitFor("Editing");
    const row = (label: string) => screen.split("\n").find((line) => line.trimStart().startsWith(label)) ?? "";
    expect(row("Alt+S ")).toContain("send; while the agent works");
    expect(row("Enter, Ctrl+J ")).toContain("new line");
    expect(row("Alt+W ")).toContain("delete the word before");
    expect(row("F2 ")).toContain("open the model picker");
    expect(row("Ctrl+K ")).toContain("delete to the end of the line");
    expect(screen).not.toMatch(/^\s*Ctrl\+W, /m);
  });
});
