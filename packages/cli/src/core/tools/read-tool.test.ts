import { mkdir, writeFile } from "node:fs/promises";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTempDir, textOf, toolContext } from "../../../test/tools/helpers.js";
import { createReadState } from "./read-state.js";
import { createReadTool } from "./read-tool.js";
import { createNodeFileSystem } from "./tool-fs.js";

const PNG_HEADER = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe("read tool", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await createTempDir());
  });
  afterEach(() => cleanup());
  const put = (name: string, content: string | Uint8Array) => writeFile(nodePath.join(dir, name), content);

  it("returns a short file whole, without line numbers", async () => {
    await put("a.txt", "one\ntwo\n");
    const result = await createReadTool({ cwd: dir }).execute({ path: "a.txt" }, toolContext());
    expect(textOf(result)).toBe("one\ntwo");
    expect(result.details).toMatchObject({ kind: "text", startLine: 1, endLine: 2, totalLines: 2, truncated: false });
  });

  it("stops at 2,000 lines with a notice and continues from offset", async () => {
    await put("big.txt", Array.from({ length: 9512 }, (_, index) => `line ${index + 1}`).join("\n"));
    const tool = createReadTool({ cwd: dir });
    const first = textOf(await tool.execute({ path: "big.txt" }, toolContext()));
    expect(first.split("\n")[1999]).toBe("line 2000");
    expect(first).toContain("[lines 1-2000 of 9512; use offset=2001 to continue]");
    const next = textOf(await tool.execute({ path: "big.txt", offset: 2001, limit: 3 }, toolContext()));
    expect(next).toBe("line 2001\nline 2002\nline 2003\n\n[lines 2001-2003 of 9512; use offset=2004 to continue]");
    const last = textOf(await tool.execute({ path: "big.txt", offset: 9511 }, toolContext()));
    expect(last).toBe("line 9511\nline 9512");
  });

  it("stops at the byte limit with a notice naming it", async () => {
    await put("wide.txt", Array.from({ length: 100 }, () => "x".repeat(1000)).join("\n"));
    const text = textOf(await createReadTool({ cwd: dir }).execute({ path: "wide.txt" }, toolContext()));
    expect(text).toContain("[lines 1-51 of 100 (50 KB limit); use offset=52 to continue]");
  });

  it("cuts a single over-long line and says how to see the rest", async () => {
    await put("min.js", `${"y".repeat(200_000)}\nnext`);
    const text = textOf(await createReadTool({ cwd: dir }).execute({ path: "min.js" }, toolContext()));
    expect(text.startsWith("y".repeat(50 * 1024))).toBe(true);
    expect(text).not.toContain("y".repeat(50 * 1024 + 1));
    expect(text).toMatch(/line 1 is 195 KB, longer than the 50 KB limit.*sed -n '1p' min\.js.*offset=2/s);
  });

  it("refuses an offset beyond the end", async () => {
    await put("a.txt", "one\ntwo");
    await expect(createReadTool({ cwd: dir }).execute({ path: "a.txt", offset: 5 }, toolContext())).rejects.toThrow(
      /offset=5 is beyond the end of a\.txt, which has 2 lines/,
    );
  });

  it("strips CR and BOM from what the model sees", async () => {
    await put("crlf.txt", "\uFEFFone\r\ntwo\r\n");
    expect(textOf(await createReadTool({ cwd: dir }).execute({ path: "crlf.txt" }, toolContext()))).toBe("one\ntwo");
  });

  it("describes binary files instead of dumping them", async () => {
    await put("blob.bin", Buffer.from([1, 2, 0, 3, 65, 66]));
    const result = await createReadTool({ cwd: dir }).execute({ path: "blob.bin" }, toolContext());
    expect(textOf(result)).toMatch(/binary file \(6 B\); not shown/);
    expect(result.details?.kind).toBe("binary");
  });

  it("returns images as image content, detected by magic bytes not extension", async () => {
    const png = Buffer.concat([PNG_HEADER, Buffer.alloc(100, 7)]);
    await put("picture.dat", png);
    const result = await createReadTool({ cwd: dir }).execute({ path: "picture.dat" }, toolContext());
    expect(result.content[1]).toEqual({ type: "image", mimeType: "image/png", data: png.toString("base64") });
    await put("photo.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
    const jpeg = await createReadTool({ cwd: dir }).execute({ path: "photo.jpg" }, toolContext());
    expect(jpeg.details?.mimeType).toBe("image/jpeg");
  });

  it("refuses images above the size cap", async () => {
    await put("huge.png", Buffer.concat([PNG_HEADER, Buffer.alloc(2048)]));
    const tool = createReadTool({ cwd: dir, maxImageBytes: 1024 });
    await expect(tool.execute({ path: "huge.png" }, toolContext())).rejects.toThrow(
      /above the 1 KB limit for images.*Shrink/,
    );
  });

  it("explains missing files, directories and an empty file", async () => {
    const tool = createReadTool({ cwd: dir });
    await expect(tool.execute({ path: "nope.txt" }, toolContext())).rejects.toThrow(
      /File not found: nope\.txt\. Use ls or find/,
    );
    await mkdir(nodePath.join(dir, "sub"));
    await expect(tool.execute({ path: "sub" }, toolContext())).rejects.toThrow(/is a directory.*Use ls/);
    await put("empty.txt", "");
    expect(textOf(await tool.execute({ path: "empty.txt" }, toolContext()))).toBe("[empty.txt is empty]");
  });

  it("reads a file of up to 8 KB once and streams larger ones, with the same window and notices", async () => {
    const nodeFs = createNodeFileSystem();
    let streams = 0;
    const fs = {
      ...nodeFs,
      readStream: (...args: Parameters<typeof nodeFs.readStream>) => {
        streams++;
        return nodeFs.readStream(...args);
      },
    };
    const tool = createReadTool({ cwd: dir, fs, maxLines: 3 });
    const lines = (count: number, width: number) =>
      Array.from({ length: count }, (_, index) => String(index + 1).padStart(width, "0")).join("\n");
    // 1,023 numbered lines take 8,184 bytes with their newlines; the last line makes 8,192 or 8,193.
    for (const [name, lastLine, expectedStreams] of [
      ["exact.txt", "x".repeat(8), 0],
      ["over.txt", "x".repeat(9), 1],
    ] as const) {
      await put(name, `${lines(1023, 7)}\n${lastLine}`);
      streams = 0;
      const result = await tool.execute({ path: name, offset: 1022 }, toolContext());
      expect(streams).toBe(expectedStreams);
      expect(textOf(result)).toBe(`0001022\n0001023\n${lastLine}`);
      expect(result.details).toMatchObject({ startLine: 1022, endLine: 1024, totalLines: 1024, truncated: false });
      const first = textOf(await tool.execute({ path: name }, toolContext()));
      expect(first).toBe("0000001\n0000002\n0000003\n\n[lines 1-3 of 1024; use offset=4 to continue]");
    }
  });

  it("records what it read in the shared read-state", async () => {
    await put("a.txt", "abc");
    const readState = createReadState();
    await createReadTool({ cwd: dir, readState }).execute({ path: "a.txt" }, toolContext());
    expect(readState.get(nodePath.join(dir, "a.txt"))).toMatchObject({ size: 3 });
  });

  it("honours an aborted signal", async () => {
    await put("a.txt", "abc");
    const controller = new AbortController();
    controller.abort();
    await expect(
      createReadTool({ cwd: dir }).execute({ path: "a.txt" }, toolContext(controller.signal)),
    ).rejects.toThrow();
  });
});
