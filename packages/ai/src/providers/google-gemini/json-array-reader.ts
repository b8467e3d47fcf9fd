import { GyreError } from "../../errors.js";

/**
 * An incremental reader for Gemini's non-SSE stream body: one JSON array whose elements arrive
 * one at a time (`[{…}\n,\r\n{…}\n]`). `feed` takes text in chunks of any size and returns the
 * elements completed so far, parsed; `finish` throws when the body stopped mid-element or before
 * the closing `]`. A bare object body (no array) is accepted as a single element.
 *
 * It tracks only nesting depth and string/escape state, so each byte is looked at once and an
 * element is parsed once, when complete: linear in the body size.
 */
export class JsonArrayReader {
  private pieces: string[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  private opened = false;
  private closed = false;

  feed(text: string): unknown[] {
    const elements: unknown[] = [];
    let start = this.depth > 0 ? 0 : -1;
    for (let at = 0; at < text.length; at++) {
      const char = text.charCodeAt(at);
      if (this.depth === 0) {
        if (isBetweenElements(char)) continue;
        if (char === 0x5b /* [ */ && !this.opened) this.opened = true;
        else if (char === 0x5d /* ] */ && this.opened && !this.closed) this.closed = true;
        else if (char === 0x7b /* { */ && !this.closed) {
          this.depth = 1;
          start = at;
        } else {
          throw new GyreError(
            "bad_stream",
            `Gemini sent an unexpected ${JSON.stringify(text[at])} between JSON array elements.`,
          );
        }
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === 0x5c /* \ */) this.escaped = true;
        else if (char === 0x22 /* " */) this.inString = false;
        continue;
      }
      if (char === 0x22) this.inString = true;
      else if (char === 0x7b || char === 0x5b) this.depth++;
      else if (char === 0x7d || char === 0x5d) {
        this.depth--;
        if (this.depth === 0) {
          this.pieces.push(text.slice(start, at + 1));
          elements.push(this.parseElement());
          start = -1;
        }
      }
    }
    if (this.depth > 0 && start >= 0) this.pieces.push(text.slice(start));
    return elements;
  }

  /** Throws `bad_stream` when the body ended inside an element or without its closing `]`. */
  finish(): void {
    if (this.depth > 0 || (this.opened && !this.closed)) {
      throw new GyreError("bad_stream", "The Gemini response ended in the middle of its JSON array.");
    }
  }

  private parseElement(): unknown {
    const text = this.pieces.join("");
    this.pieces = [];
    try {
      return JSON.parse(text);
    } catch {
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      throw new GyreError("bad_stream", `Gemini sent a malformed JSON array element: ${shown}`);
    }
  }
}

function isBetweenElements(char: number): boolean {
  // whitespace and the comma separating elements
  return char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09 || char === 0x2c;
}
