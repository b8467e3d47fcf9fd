import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultKeybindings, isKeyId, loadKeybindings, matchesAction, parseKeybindings } from "./keybindings.js";

describe("keybindings", () => {
  it("accepts modifier+key names and rejects anything else", () => {
    for (const key of ["ctrl+p", "shift+ctrl+p", "alt+enter", "f5", "escape", "ctrl++", "pageUp"])
      expect(isKeyId(key), key).toBe(true);
    for (const key of ["ctrl+", "hyper+p", "ctrl+ctrl+p", "ctrl+pp", "", "Ctrl+P"])
      expect(isKeyId(key), key).toBe(false);
  });

  it("tells Shift+Ctrl+P (kitty keyboard protocol) from Ctrl+P by default", () => {
    const bindings = defaultKeybindings();
    expect(matchesAction(bindings, "\x1b[112;6u", "cycleModelBackward")).toBe(true);
    expect(matchesAction(bindings, "\x1b[112;6u", "cycleModelForward")).toBe(false);
    expect(matchesAction(bindings, "\x10", "cycleModelForward")).toBe(true);
    expect(matchesAction(bindings, "\x1bt", "cycleThinkingLevel")).toBe(true);
  });

  it("replaces the defaults of the actions a file names and keeps the rest", () => {
    const { bindings, problems } = parseKeybindings(
      { selectModel: ["f2", "alt+m"], cycleModelForward: "ctrl+n" },
      "k.json",
    );
    expect(problems).toEqual([]);
    expect(bindings.selectModel).toEqual(["f2", "alt+m"]);
    expect(bindings.abort).toEqual(defaultKeybindings().abort);
    expect(matchesAction(bindings, "\x0e", "cycleModelForward")).toBe(true);
    expect(matchesAction(bindings, "\x10", "cycleModelForward")).toBe(false);
  });

  it("reports every problem in one pass, each naming the entry and what to write", () => {
    const { bindings, problems } = parseKeybindings(
      { selectModl: "ctrl+l", exit: 5, abort: "ctrl+bogus", expandTools: "ctrl+t" },
      "k.json",
    );
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/unknown action "selectModl"; the actions are abort, /);
    expect(problems[1]).toMatch(/"exit" must be a key or a list of keys/);
    expect(problems[2]).toMatch(/"abort" has "ctrl\+bogus", not a key; write keys like ctrl\+p/);
    expect(problems[3]).toMatch(/ctrl\+t is bound to both expandTools and toggleThinking/);
    expect(bindings.abort).toEqual(["escape"]);
  });

  it("reads $GYRE_HOME/keybindings.json; a missing file is the defaults, broken JSON a problem", async () => {
    const home = await mkdtemp(join(tmpdir(), "gyre-keys-"));
    expect(await loadKeybindings(home)).toEqual({ bindings: defaultKeybindings(), problems: [] });
    await writeFile(join(home, "keybindings.json"), "{ selectModel: }");
    const broken = await loadKeybindings(home);
    expect(broken.problems[0]).toMatch(/keybindings\.json is not valid JSON .*; using the default keys\./);
    await writeFile(join(home, "keybindings.json"), JSON.stringify({ selectModel: "f2" }));
    expect((await loadKeybindings(home)).bindings.selectModel).toEqual(["f2"]);
  });
});
