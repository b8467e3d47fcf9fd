import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { describe, expect, it } from "vitest";
import { LineBuffer, type OversizeLine } from "./line-buffer.js";

function reader(maxLineBytes: number) {
  const oversize: OversizeLine[] = [];
  const buffer = new LineBuffer({
    maxLineBytes,
    parse: deserializeMessage,
    onOversize: (line) => {
      oversize.push(line);
      return line.id === undefined
        ? undefined
        : { jsonrpc: "2.0", id: line.id, error: { code: -32600, message: "big" } };
    },
  });
  const read = () => {
    const messages: unknown[] = [];
    for (let message = buffer.readMessage(); message; message = buffer.readMessage()) messages.push(message);
    return messages;
  };
  return { buffer, oversize, read };
}

describe("LineBuffer", () => {
  it("reads lines split across chunks and several lines in one chunk, skipping blank ones", () => {
    const { buffer, read } = reader(1024);
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,"res'));
    expect(read()).toEqual([]);
    buffer.append(Buffer.from('ult":{}}\r\n\n{"jsonrpc":"2.0","method":"x"}\n'));
    expect(read()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", method: "x" },
    ]);
  });

  it("drops a line above the cap as it arrives, finds its id at either end, and reads on", () => {
    const { buffer, oversize, read } = reader(64);
    buffer.append(Buffer.from(`{"result":{"text":"${"z".repeat(100)}`));
    buffer.append(
      Buffer.from(
        `${"z".repeat(100)}"},"jsonrpc":"2.0","id":7}\n{"jsonrpc":"2.0","id":"q","method":"m","params":"${"p".repeat(80)}"}\n`,
      ),
    );
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":8,"result":{}}\n'));
    expect(oversize.map(({ bytes, id }) => ({ bytes, id }))).toEqual([
      { bytes: 245, id: 7 },
      { bytes: 131, id: "q" },
    ]);
    expect(read()).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "big" } },
      { jsonrpc: "2.0", id: "q", error: { code: -32600, message: "big" } },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });
});
