/** Decoding and re-encoding a file's text so edit keeps its BOM and encoding byte for byte. */

export type TextEncodingName = "utf-8" | "utf-8-bom" | "utf-16le" | "utf-16be";

/** A file's text plus how to write it back. */
export type DecodedText = { text: string; encoding: TextEncodingName };

/** Decodes by BOM (UTF-8, UTF-16 LE/BE), else strict UTF-8; throws for anything else. */
export function decodeText(bytes: Uint8Array, displayPath: string): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: strictUtf8(bytes.subarray(3), displayPath), encoding: "utf-8-bom" };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: new TextDecoder("utf-16le").decode(bytes.subarray(2)), encoding: "utf-16le" };
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    return { text: new TextDecoder("utf-16be").decode(bytes.subarray(2)), encoding: "utf-16be" };
  }
  return { text: strictUtf8(bytes, displayPath), encoding: "utf-8" };
}

/** The bytes of `text` in `encoding`, BOM included. */
export function encodeText(text: string, encoding: TextEncodingName): Uint8Array {
  switch (encoding) {
    case "utf-8":
      return Buffer.from(text, "utf8");
    case "utf-8-bom":
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, "utf8")]);
    case "utf-16le":
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    case "utf-16be": {
      const body = Buffer.from(text, "utf16le");
      body.swap16();
      return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
    }
    default: {
      const unknown: never = encoding;
      throw new Error(`Unknown encoding ${String(unknown)}`);
    }
  }
}

function strictUtf8(bytes: Uint8Array, displayPath: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error(
      `${displayPath} is not valid UTF-8 text, so edit will not touch it (it could corrupt the file). ` +
        "Change it with bash (e.g. sed) or rewrite it with write if you know its content.",
    );
  }
}
