/** /diff, /review, `#` memory and /memory in the real TUI under tmux (docs/review.md, docs/memory.md). */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, readSessionFiles, startGyre, stopGyres, submit } from "../interactive/gyre-in-tmux.js";

afterEach(stopGyres);

const systemOf = (body: { messages?: { role: string; content: unknown }[] } | undefined) =>
  JSON.stringify(body?.messages?.find((message) => message.role === "system")?.content ?? "");

describe("review, diff and memory in the TUI", () => {
  it("/diff shows the changed lines coloured under the checkpoint they are against; --stat the counts", async () => {
    const { tmux, home, cwd } = await startGyre(
      ({ body }) =>
        body.messages?.at(-1)?.role === "user"
          ? { toolCalls: [{ name: "bash", arguments: { command: "printf 'kept\\nnew line\\n' > notes.txt" } }] }
          : { text: "answer-done" },
      { setup: async ({ cwd }) => writeFile(join(cwd, "notes.txt"), "kept\nold line\n") },
    );
    await submit(tmux, "change the notes");
    await tmux.waitFor("answer-done");
    expect(await readFile(join(cwd, "notes.txt"), "utf8")).toBe("kept\nnew line\n");
    await eventually(async () => {
      const [file] = await readSessionFiles(home);
      return JSON.stringify(file?.entries ?? []).includes('"reason":"turn_end"') ? true : undefined;
    }, "the run's end checkpoint");
    await submit(tmux, "/diff");
    const screen = await tmux.waitFor("+new line");
    expect(screen).toMatch(/Since checkpoint [0-9a-f]{8} \(.*\): 1 modified/);
    expect(screen).toContain("-old line");
    const styled = await tmux.captureStyled();
    // Additions green (SGR 32), removals red (SGR 31), whatever else the palette adds.
    expect(styled).toMatch(/\x1b\[[0-9;]*32m\+new line/);
    expect(styled).toMatch(/\x1b\[[0-9;]*31m-old line/);
    await submit(tmux, "/diff --stat");
    await tmux.waitFor(/modified notes\.txt\s+\+1 -1/);
  });

  it("/review shows the reviewer's findings at file:line; the conversation does not get them", async () => {
    const findings = {
      findings: [{ file: "src/math.js", line: 2, severity: "high", title: "add subtracts", fix: "return a + b;" }],
    };
    const { tmux, server } = await startGyre(
      ({ body }) =>
        systemOf(body).includes("You are a code reviewer")
          ? { text: JSON.stringify(findings) }
          : { text: "plain-answer" },
      {
        setup: async ({ cwd }) => {
          const git = (...args: string[]) =>
            execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd });
          git("init", "-q");
          await mkdir(join(cwd, "src"));
          await writeFile(join(cwd, "src", "math.js"), "export function add(a, b) {\n  return a + b;\n}\n");
          git("add", ".");
          git("commit", "-q", "-m", "add");
          await writeFile(join(cwd, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
        },
      },
    );
    await submit(tmux, "/review");
    const screen = await tmux.waitFor("src/math.js:2 high: add subtracts");
    expect(screen).toContain("Review of uncommitted changes against HEAD");
    expect(screen).toContain("fix: return a + b;");
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain("+  return a - b;");
    await submit(tmux, "hello");
    await tmux.waitFor("plain-answer");
    expect(JSON.stringify(server.requests.at(-1)?.body.messages)).not.toContain("add subtracts");
  });

  it("# remembers a line where the user picks, /memory edits in $EDITOR, and the next turn's context has both", async () => {
    const tools = await mkdtemp(join(tmpdir(), "gyre-editor-"));
    const script = join(tools, "append-editor.sh");
    await writeFile(script, '#!/bin/sh\nfor file; do echo "- from the editor" >> "$file"; done\n');
    await chmod(script, 0o755);
    const { tmux, server, cwd, home } = await startGyre(() => ({ text: "turn-done" }), {
      args: ["--trust"],
      env: { EDITOR: script },
    });
    await submit(tmux, "# always run the linter");
    await tmux.waitFor("Remember where?");
    await tmux.send(["Enter"]);
    await tmux.waitFor(`Remembered in ${join(cwd, "AGENTS.md")}`);
    expect(await readFile(join(cwd, "AGENTS.md"), "utf8")).toBe("- always run the linter\n");
    await submit(tmux, "/memory");
    await tmux.waitFor("Memory read again");
    expect(await readFile(join(home, "AGENTS.md"), "utf8")).toBe("- from the editor\n");
    await submit(tmux, "go");
    await tmux.waitFor("turn-done");
    const system = systemOf(server.requests.at(-1)?.body);
    expect(system).toContain("- always run the linter");
    expect(system).toContain("- from the editor");
  });
});
