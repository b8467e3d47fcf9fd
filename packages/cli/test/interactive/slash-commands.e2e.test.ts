import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  eventually,
  type RequestBody,
  readSessionFiles,
  startGyre,
  stopGyres,
  submit,
  userTexts,
} from "./gyre-in-tmux.js";

afterEach(stopGyres);

/** Whether a request is the compaction's summary request (its system prompt asks for a hand-over). */
function isSummaryRequest(body: RequestBody): boolean {
  const system = body.messages?.find((message) => message.role === "system");
  return JSON.stringify(system?.content ?? "").includes("hand-over summary");
}

describe("slash commands in tmux", () => {
  it("/tree jumps to an earlier answer and continues from there", async () => {
    const { tmux, server } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }));
    await submit(tmux, "tree-first");
    await tmux.waitFor("answer-number-0");
    await submit(tmux, "tree-second");
    await tmux.waitFor("answer-number-1");
    await submit(tmux, "/tree");
    await tmux.waitFor("Session tree");
    await tmux.type("answer-number-0");
    await tmux.waitFor((screen) => !screen.includes("● › tree-second"));
    await tmux.send(["Enter"]);
    await tmux.waitFor("Continuing from the chosen point");
    await submit(tmux, "tree-third");
    await tmux.waitFor("answer-number-2");
    const sent = userTexts(server.requests[2]?.body).join(" ");
    expect(sent).toContain("tree-first");
    expect(sent).toContain("tree-third");
    expect(sent).not.toContain("tree-second");
  });

  it("/fork continues in a new session file whose header names the original", async () => {
    const { tmux, home } = await startGyre(({ index }) => ({ text: `answer-number-${index}` }));
    await submit(tmux, "before-fork");
    await tmux.waitFor("answer-number-0");
    const [original] = await eventually(async () => {
      const files = await readSessionFiles(home);
      return files.length === 1 ? files : undefined;
    }, "the first session file");
    await submit(tmux, "/fork");
    await tmux.waitFor("Forked into session");
    await submit(tmux, "after-fork");
    await tmux.waitFor("answer-number-1");
    const forked = await eventually(async () => {
      const files = await readSessionFiles(home);
      const fork = files.find((file) => file.path !== original?.path);
      return fork && JSON.stringify(fork.entries).includes("answer-number-1") ? fork : undefined;
    }, "the forked session file with the new answer");
    expect(forked.entries[0]).toMatchObject({ type: "session", parentSession: original?.path });
    expect(JSON.stringify(forked.entries)).toContain("before-fork");
    const originalNow = await readFile(original?.path ?? "", "utf8");
    expect(originalNow).not.toContain("after-fork");
  });

  it("/compact shows its result below the conversation, which stays on screen, and sends the summary next", async () => {
    const { tmux, server } = await startGyre(({ body, index }) =>
      isSummaryRequest(body) ? { text: "summary-marker-text of the talk" } : { text: `answer-number-${index}` },
    );
    await submit(tmux, "compact-first");
    await tmux.waitFor("answer-number-0");
    await submit(tmux, "compact-second");
    await tmux.waitFor("answer-number-1");
    await submit(tmux, "/compact keep the numbers");
    const screen = await tmux.waitFor("summary-marker-text");
    expect(screen).toContain("Older messages were compacted");
    // The result shows at the bottom, below the conversation it summarised (which stays).
    expect(screen.indexOf("answer-number-1")).toBeLessThan(screen.indexOf("summary-marker-text"));
    expect(screen).toMatch(/compacted \([\d,]+ → [\d,]+ tokens\)/);
    expect(screen).not.toContain("› [Context compacted]");
    const summaryRequest = server.requests[2]?.body ?? {};
    expect(isSummaryRequest(summaryRequest)).toBe(true);
    expect(userTexts(summaryRequest).join(" ")).toContain("keep the numbers");
    await submit(tmux, "compact-third");
    await tmux.waitFor("answer-number-3");
    // The summary (which quotes the user's earlier messages) replaces the summarised messages.
    const sent = userTexts(server.requests[3]?.body);
    expect(sent[0]).toContain("[Context compacted]");
    expect(sent[0]).toContain("summary-marker-text");
    expect(sent).not.toContain(JSON.stringify("compact-first"));
    expect(sent.at(-1)).toBe(JSON.stringify("compact-third"));
  });

  it("/export writes the session as HTML with the model's markup escaped", async () => {
    const { tmux, cwd } = await startGyre(() => ({ text: "danger <script>alert(1)</script> risky-answer-end" }));
    await submit(tmux, "say something risky");
    await tmux.waitFor("risky-answer-end");
    await submit(tmux, "/export out.html");
    await tmux.waitFor(/Exported \d+ entries to/);
    const html = await readFile(join(cwd, "out.html"), "utf8");
    expect(html).toContain("say something risky");
    expect(html).toContain("danger &lt;script&gt;alert(1)&lt;/script&gt; risky-answer-end");
    expect(html).not.toContain("<script>");
  });

  it("/name shows the name in the footer and records it in the session file", async () => {
    const { tmux, home } = await startGyre(() => ({ text: "named-answer" }));
    await submit(tmux, "hello");
    await tmux.waitFor("named-answer");
    await submit(tmux, "/name my-session-name");
    const screen = await tmux.waitFor('Session named "my-session-name"');
    expect(screen).toMatch(/· my-session-name( · sandbox [^\n]*)?\s*$/m);
    const entry = await eventually(async () => {
      const [file] = await readSessionFiles(home);
      return file?.entries.find((candidate) => candidate.type === "session_info");
    }, "a session_info entry");
    expect(entry).toMatchObject({ name: "my-session-name" });
  });
});

describe("/export of a compacted, branched session", () => {
  it("keeps everything before the compaction, renders Markdown and edit diffs, and writes to $GYRE_HOME/exports", async () => {
    const { tmux, home, cwd } = await startGyre(
      ({ body, index }) => {
        if (isSummaryRequest(body)) return { text: "summary-of-old-turns" };
        if (index === 0)
          return {
            toolCalls: [{ name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "one", newText: "two" }] } }],
          };
        return { text: `**bold-answer-${index}** and \`code\`` };
      },
      { setup: ({ cwd: dir }) => writeFile(join(dir, "a.txt"), "one\n") },
    );
    await submit(tmux, "earliest-prompt-text");
    await tmux.waitFor("bold-answer-1");
    await submit(tmux, "second-prompt-text");
    await tmux.waitFor("bold-answer-2");
    await submit(tmux, "/compact");
    await tmux.waitFor("summary-of-old-turns");
    await submit(tmux, "/export");
    await tmux.waitFor(/Exported \d+ entries to/);
    const [file] = await readdir(join(home, "exports"));
    const html = await readFile(join(home, "exports", file ?? ""), "utf8");
    expect(html).toContain("earliest-prompt-text");
    expect(html).toContain("<strong>bold-answer-1</strong>");
    expect(html).toMatch(/<span class="del">-one<\/span>/);
    expect(html).toMatch(/<span class="add">\+two<\/span>/);
    expect(html).toContain("summary-of-old-turns");
    await submit(tmux, "/export --jsonl out.jsonl");
    await tmux.waitFor("out.jsonl");
    const lines = (await readFile(join(cwd, "out.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toContain("compaction");
    expect(lines.join("\n")).toContain("earliest-prompt-text");
  });
});
