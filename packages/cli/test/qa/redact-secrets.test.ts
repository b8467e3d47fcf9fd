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

describe("session redaction of URL passwords (D19)", () => {
  const redact = createRedactor();
  it.each([
    ["postgres://u:pa55-word@db.internal:5432/app", "postgres://u:[REDACTED]@db.internal:5432/app"],
    ["DATABASE_URL=mysql://admin:hunter2@127.0.0.1/x", "DATABASE_URL=mysql://admin:[REDACTED]@127.0.0.1/x"],
    ["git clone https://bot:ghs%2Fsecret@github.com/o/r", "git clone https://bot:[REDACTED]@github.com/o/r"],
    ["redis://:only-pass@cache:6379", "redis://:[REDACTED]@cache:6379"],
  ])("redacts the password of %s", (text, expected) => {
    const line = redact(JSON.stringify({ text }));
    expect(JSON.parse(line).text).toBe(expected);
  });

  it("keeps URLs without a password, and stays valid JSON around quotes", () => {
    const text = 'see https://user@host/x and http://host:8080/p and "amqp://a:b@q"';
    const line = redact(JSON.stringify({ text }));
    expect(JSON.parse(line).text).toBe('see https://user@host/x and http://host:8080/p and "amqp://a:[REDACTED]@q"');
  });
});
