import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/session/redact-secrets.js";

describe("session redaction of key shapes", () => {
  const redact = createRedactor();
  // Lines are redacted after JSON.stringify: a key that starts an output line follows "\n",
  // whose "n" is a word character, so a `\b` anchor let it through to the session file.
  it.each([
    ["a key on its own output line", "env output\nsk-proj-ECHOEDkey1234567890abcdefghij\n"],
    ["a key after a tab", "KEY:\tsk-ant-api03-abcdefghijklmnopqrstuvwxyz"],
    ["a GitHub token after a carriage return", "x\rghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["a key at the very start", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"],
  ])("redacts %s", (_name, text) => {
    const line = redact(JSON.stringify({ text }));
    expect(line).not.toMatch(/sk-|ghp_/);
    expect(JSON.parse(line).text).toContain("[REDACTED]");
  });

  it("leaves words that merely contain a key prefix alone", () => {
    const text = "task-proj-planning-document-number-one";
    expect(redact(JSON.stringify({ text }))).toBe(JSON.stringify({ text }));
  });
});
