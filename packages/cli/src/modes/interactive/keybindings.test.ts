import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getKeybindings } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import {
  applyEditorKeybindings,
  defaultKeybindings,
  isKeyId,
  loadKeybindings,
  matchesAction,
  parseKeybindings,
} from "./keybindings.js";
import { keyLabel } from "./slash-commands/help-command.js";

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

  it("moves the editor's own keys, which the editor then matches, and keeps pi-tui's defaults for the rest", () => {
    const { bindings, problems } = parseKeybindings({ submit: "alt+s", deleteWordBackward: ["alt+w"] }, "k.json");
    expect(problems).toEqual([]);
    expect(bindings.submit).toEqual(["alt+s"]);
    expect(bindings.deleteToLineEnd).toEqual(["ctrl+k"]);
    applyEditorKeybindings(bindings);
    try {
      expect(getKeybindings().matches("\x1bs", "tui.input.submit")).toBe(true);
      expect(getKeybindings().matches("\r", "tui.input.submit")).toBe(false);
      expect(getKeybindings().matches("\x17", "tui.editor.deleteWordBackward")).toBe(false);
      expect(getKeybindings().matches("\x0b", "tui.editor.deleteToLineEnd")).toBe(true);
    } finally {
      applyEditorKeybindings(defaultKeybindings());
    }
  });

  it("reports a moved key that another action has, but not the defaults' own Ctrl+D overlap", () => {
    expect(parseKeybindings({}, "k.json").problems).toEqual([]);
    const { problems } = parseKeybindings({ submit: "ctrl+p" }, "k.json");
    expect(problems).toEqual([
      "k.json: ctrl+p is bound to both cycleModelForward and submit; give one of them another key.",
    ]);
  });

  it("has every action with its default keys in docs/keybindings.md", async () => {
    const doc = await readFile(new URL("../../../../../docs/keybindings.md", import.meta.url), "utf8");
    for (const [action, keys] of Object.entries(defaultKeybindings()))
      expect(doc, action).toContain(`| \`${action}\` | ${keys.map((key) => `\`${key}\``).join(", ")} |`);
  });

  it("names keys as people write them", () => {
    expect(["shift+ctrl+p", "escape", "alt+enter", "ctrl+-", "pageUp", "f2", "ctrl++"].map(keyLabel)).toEqual([
      "Shift+Ctrl+P",
      "Esc",
      "Alt+Enter",
      "Ctrl+-",
      "PageUp",
      "F2",
      "Ctrl++",
    ]);
  });
});
