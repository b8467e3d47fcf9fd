import { describe, expect, it } from "vitest";
import { loadSchemaChecker } from "../../core/config/schema-check.js";
import { parseRpcCommand, rpcCommandTypes } from "./rpc-types.js";

const check = await loadSchemaChecker();

describe("parseRpcCommand", () => {
  it("names every problem of a command against its schema", () => {
    const parsed = parseRpcCommand(
      JSON.stringify({ id: "p1", type: "prompt", message: 5, streamingBehavior: "later", images: [{ type: "image" }] }),
      check,
    );
    expect(parsed).toEqual({
      ok: false,
      id: "p1",
      command: "prompt",
      problems: [
        "/message must be a string (got 5)",
        "/images/0/data is missing; it must be a string",
        "/images/0/mimeType is missing; it must be a string",
        '/streamingBehavior must be one of "steer", "followUp" (got "later")',
      ],
      error:
        'Invalid "prompt" command: /message must be a string (got 5); /images/0/data is missing; it must be a string; ' +
        '/images/0/mimeType is missing; it must be a string; /streamingBehavior must be one of "steer", "followUp" (got "later").',
    });
  });

  it("accepts a valid command and names the fields it does not know", () => {
    expect(parseRpcCommand('{"type":"set_thinking_level","level":"high","levle":"x"}', check)).toEqual({
      ok: true,
      value: { type: "set_thinking_level", level: "high", levle: "x" },
      warnings: ['/levle is not a field of "set_thinking_level"; it is ignored.'],
    });
    expect(parseRpcCommand('{"type":"set_thinking_level","level":"max"}', check)).toMatchObject({
      ok: false,
      problems: ['/level must be one of "off", "low", "medium", "high" (got "max")'],
    });
  });

  it("keeps the framing errors: bad JSON, no type, an unknown command", () => {
    expect(parseRpcCommand("{", check)).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid JSON/) });
    expect(parseRpcCommand('{"id":"x"}', check)).toEqual({
      ok: false,
      id: "x",
      error: "A command needs a string `type`.",
    });
    expect(parseRpcCommand('{"type":"toString"}', check)).toMatchObject({
      ok: false,
      error: `Unknown command "toString"; known commands: ${rpcCommandTypes.join(", ")}.`,
    });
  });

  it("needs the id of the approval it answers", () => {
    expect(parseRpcCommand('{"type":"approval_response","decision":"allow"}', check)).toMatchObject({
      ok: false,
      problems: ["/id is missing; it must be a string"],
    });
  });
});
