import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readLines, writeJsonLine } from "./jsonl.js";
import { createRpcUserInterface } from "./rpc-mode.js";

function collect(input: PassThrough, options: Parameters<typeof readLines>[3] = {}) {
  const lines: string[] = [];
  const ended = new Promise<void>((resolve) => readLines(input, (line) => lines.push(line), resolve, options));
  return { lines, ended };
}

describe("reading JSONL commands", () => {
  it("reads a 100 MB line sent in 64 KiB chunks in linear time", async () => {
    const input = new PassThrough();
    const { lines, ended } = collect(input);
    const payload = "x".repeat(100 * 1024 * 1024);
    const started = Date.now();
    for (let at = 0; at < payload.length; at += 65536) input.write(payload.slice(at, at + 65536));
    input.end('\n{"type":"abort"}\n');
    await ended;
    // Quadratic rescanning took 44 s here; one pass takes well under a few seconds.
    expect(Date.now() - started).toBeLessThan(8000);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBe(payload.length);
    expect(lines[1]).toBe('{"type":"abort"}');
  }, 30_000);

  it("skips a line over the limit, reports its size, and reads the next line", async () => {
    const input = new PassThrough();
    const tooLong: number[] = [];
    const { lines, ended } = collect(input, { maxLineBytes: 1000, onTooLong: (bytes) => tooLong.push(bytes) });
    input.write("y".repeat(600));
    input.write("y".repeat(600));
    input.end("y\nnext é\r\n");
    await ended;
    expect(tooLong).toEqual([1201]);
    expect(lines).toEqual(["next é"]);
  });

  it("pauses reading while the output is stalled and resumes when it drains", async () => {
    let release: (() => void) | undefined;
    const output = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, callback) {
        release = callback;
      },
    });
    const input = new PassThrough();
    readLines(
      input,
      (line) => output.write(`${line}\n`),
      () => {},
      { output },
    );
    input.write("a line longer than sixteen bytes\npartial");
    expect(input.isPaused()).toBe(true);
    release?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.isPaused()).toBe(false);
  });
});

describe("writing JSONL records", () => {
  it("redacts keys held in the environment and known key shapes", () => {
    let written = "";
    const output = new Writable({
      write(chunk, _encoding, callback) {
        written += String(chunk);
        callback();
      },
    });
    writeJsonLine(output, { text: "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 here" });
    expect(written).not.toContain("abcdefghijklmnop");
    expect(written).toContain("[REDACTED]");
  });
});

describe("RPC questions", () => {
  it("count as a no when the client never answers, with a warning", async () => {
    let written = "";
    const output = new Writable({
      write(chunk, _encoding, callback) {
        written += String(chunk);
        callback();
      },
    });
    const ui = createRpcUserInterface(output, 50);
    expect(await ui.confirm({ title: "Run it?" })).toBe(false);
    expect(written).toContain('"method":"confirm"');
    expect(written).toMatch(/No answer to \\"Run it\?\\" .* taken as no/);
  });
});
