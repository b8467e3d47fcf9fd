import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { complete, stream } from "../../index.js";
import { createFauxModel } from "./stream.js";

describe("faux provider", () => {
  it("streams text token by token and ends with done", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: "hello world, faux" }] }]);
    const events = [];
    const response = stream(faux.model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] });
    for await (const event of response) events.push(event.type);
    const message = await response.result();
    expect(message.content).toEqual([{ type: "text", text: "hello world, faux" }]);
    expect(message.stopReason).toBe("stop");
    expect(events[0]).toBe("start");
    expect(events.filter((type) => type === "text_delta").length).toBe(5);
    expect(events.at(-1)).toBe("done");
  });

  it("keeps invalid tool-argument text for the agent's error message", async () => {
    const faux = createFauxModel([{ content: [{ type: "toolCall", name: "calc", arguments: '{"expr": ' }] }]);
    const message = await complete(faux.model, { messages: [] });
    expect(message.stopReason).toBe("toolUse");
    expect(message.content[0]).toMatchObject({
      type: "toolCall",
      name: "calc",
      arguments: {},
      rawArguments: '{"expr": ',
    });
  });

  it("ends as aborted within the token delay and keeps the partial text", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: "x".repeat(4000) }] }], { tokenDelayMs: 5 });
    const controller = new AbortController();
    const response = stream(faux.model, { messages: [] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    const message = await response.result();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(message.stopReason).toBe("aborted");
    const block = message.content[0];
    expect(block?.type === "text" && block.text.length > 0 && block.text.length < 4000).toBe(true);
  });

  it("ends an abort before its first chunk with one error event and no empty text block", async () => {
    for (const content of [
      [{ type: "text" as const, text: "never sent" }],
      [{ type: "thinking" as const, thinking: "never thought" }],
    ]) {
      const faux = createFauxModel([{ content }], { tokenDelayMs: 5 });
      const controller = new AbortController();
      controller.abort();
      const response = stream(faux.model, { messages: [] }, { signal: controller.signal });
      const types: string[] = [];
      for await (const event of response) types.push(event.type);
      const message = await response.result();
      expect(types).toEqual(["start", "error"]);
      expect(message.stopReason).toBe("aborted");
      expect(message.content).toEqual([]);
    }
  });

  it("reports an exhausted script as an error instead of throwing", async () => {
    const faux = createFauxModel([]);
    const message = await complete(faux.model, { messages: [] });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/no response left/);
  });

  it("streams through a copy of the model, as a registry hands it on", async () => {
    const faux = createFauxModel([{ content: [{ type: "text", text: "from the copy" }] }]);
    const copy = structuredClone({ ...faux.model });
    expect(Object.keys(copy)).toEqual(Object.keys(faux.model));
    expect((await complete(copy, { messages: [] })).content).toEqual([{ type: "text", text: "from the copy" }]);
  });

  it("frees a script once its model and handle are gone (nothing process-global keeps it)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gyre-faux-gc-"));
    try {
      const bundle = join(dir, "faux.mjs");
      await build({
        entryPoints: [fileURLToPath(new URL("./stream.ts", import.meta.url))],
        bundle: true,
        platform: "node",
        format: "esm",
        outfile: bundle,
        logLevel: "error",
      });
      // 400 models with a 256 KiB script each: about 100 MiB if the scripts were kept.
      const script = `
        const { createFauxModel } = await import(${JSON.stringify(bundle)});
        const settle = async () => { for (let i = 0; i < 6; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); } };
        await settle();
        const before = process.memoryUsage().heapUsed;
        for (let i = 0; i < 400; i++) {
          // A flat string (not "x".repeat, which V8 shares between halves): 256 KiB each.
          const text = Buffer.alloc(262144, 97 + (i % 26)).toString("latin1");
          createFauxModel([{ content: [{ type: "text", text }] }]);
        }
        await settle();
        process.stdout.write(String((process.memoryUsage().heapUsed - before) / 1048576));`;
      const grownMiB = Number(
        execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" }),
      );
      expect(grownMiB).toBeLessThan(20);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
