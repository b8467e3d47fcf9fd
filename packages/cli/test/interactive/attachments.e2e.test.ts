import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGyre, stopGyres } from "./gyre-in-tmux.js";

afterEach(stopGyres);

// The 8-byte PNG signature and an IHDR chunk start: enough for the bytes to say "PNG".
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("0000000dIHDR-not-a-real-picture"),
]);

const sent = (server: { requests: { body: unknown }[] }, index = 0) => JSON.stringify(server.requests[index]?.body);

describe("attachments in tmux", () => {
  it("attaches a file picked by @ completion, and the conversation shows only its name", async () => {
    const { tmux, server, cwd } = await startGyre(() => ({ text: "read-it" }), {
      setup: async ({ cwd }) => writeFile(join(cwd, "notes-for-model.txt"), "content-marker-42\nsecond line\n"),
    });
    await tmux.type("explain @notes-for");
    await tmux.waitFor(/notes-for-model\.txt\s*$/m);
    await tmux.send(["Tab"]);
    await tmux.waitFor("explain @notes-for-model.txt");
    await tmux.type("briefly");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("read-it");
    expect(screen).toContain(`Attached ${join(cwd, "notes-for-model.txt")} (2 lines).`);
    expect(screen).toContain(`[attached ${join(cwd, "notes-for-model.txt")}]`);
    expect(screen).not.toContain("content-marker-42");
    expect(sent(server)).toContain("content-marker-42");
    expect(sent(server)).toContain("explain @notes-for-model.txt briefly");
  });

  it("sends a long file cut to the read tool's limits and says so", async () => {
    const lines = Array.from({ length: 3000 }, (_, index) => `row ${index + 1}`).join("\n");
    const { tmux, server } = await startGyre(() => ({ text: "long-read" }), {
      width: 160,
      setup: async ({ cwd }) => writeFile(join(cwd, "long.txt"), lines),
    });
    // The @ menu opens once the file listing is in (sooner or later with the machine's load), and
    // Enter with the menu open picks from it instead of sending: pick with Tab, then send.
    await tmux.type("sum @long");
    await tmux.waitFor(/→ long\.txt/);
    await tmux.send(["Tab"]);
    await tmux.waitFor((screen) => screen.includes("sum @long.txt") && !screen.includes("→ long.txt"));
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("long-read");
    expect(screen.replace(/\s+/g, " ")).toContain("(3000 lines); truncated to the read tool's limits");
    const body = sent(server);
    expect(body).toContain("row 2000");
    expect(body).not.toContain("row 2001\\n");
    expect(body).toContain("offset=2001");
  });

  it("attaches a dragged image path in quotes and an escaped text path as the terminal pastes them", async () => {
    const { tmux, server, cwd } = await startGyre(() => ({ text: "seen-it" }), {
      width: 160,
      setup: async ({ cwd }) => {
        await writeFile(join(cwd, "My Shot.png"), png);
        await writeFile(join(cwd, "my notes.md"), "dragged-text-marker\n");
      },
    });
    const image = join(cwd, "My Shot.png");
    const text = join(cwd, "my notes.md").replace(/ /g, "\\ ");
    await tmux.paste(`'${image}' and ${text}`);
    // At paste time, before anything is sent, each path is already a chip.
    const editing = await tmux.waitFor("[image #1 My Shot.png] and [file #2 my notes.md]");
    expect(editing).not.toContain(image);
    expect(server.requests).toHaveLength(0);
    await tmux.type(" what are these?");
    await tmux.send(["Enter"]);
    const screen = await tmux.waitFor("seen-it");
    expect(screen).toContain(`Attached image ${image}.`);
    const body = sent(server);
    expect(body).toContain(`data:image/png;base64,${png.toString("base64")}`);
    expect(body).toContain("dragged-text-marker");
    // The model reads the plain paths, without the terminal's quoting.
    expect(body).toContain(`${image} and ${join(cwd, "my notes.md")} what are these?`);
  });

  it("deletes a pasted chip with one Backspace and leaves a pasted word that names no file as text", async () => {
    const { tmux, server, cwd } = await startGyre(() => ({ text: "sent-it" }), {
      width: 160,
      setup: async ({ cwd }) => writeFile(join(cwd, "a.txt"), "chip-deleted-marker\n"),
    });
    await tmux.type("look at");
    await tmux.paste(join(cwd, "a.txt"));
    await tmux.waitFor("look at [file #1 a.txt]");
    await tmux.send(["BSpace"]);
    // The space put before the chip stays: the chip went, not what the user typed.
    await tmux.waitFor((screen) => /look at\s*$/m.test(screen) && !screen.includes("[file #1"));
    await tmux.paste("/no/such/file.txt");
    await tmux.waitFor("look at /no/such/file.txt");
    await tmux.send(["Enter"]);
    await tmux.waitFor("sent-it");
    expect(sent(server)).toContain("look at /no/such/file.txt");
    expect(sent(server)).not.toContain("chip-deleted-marker");
  });
});
