import { describe, expect, it } from "vitest";
import { acceptDefaults, elicitWithUserInterface } from "./elicit-with-user-interface.js";

const request = (required: string[]) => ({
  message: "confirm",
  requestedSchema: {
    type: "object" as const,
    properties: {
      name: { type: "string" as const, default: "John Doe" },
      age: { type: "integer" as const, default: 30 },
      note: { type: "string" as const },
    },
    required,
  },
});

describe("answering an elicitation with nobody there", () => {
  it("accepts with the schema's defaults, leaving fields without one out", () => {
    expect(acceptDefaults(request(["name"]))).toEqual({ action: "accept", content: { name: "John Doe", age: 30 } });
  });

  it("declines when a required field has no default", () => {
    expect(acceptDefaults(request(["note"]))).toEqual({ action: "decline" });
  });

  it("declines by default and for URL elicitations, whatever the setting", async () => {
    const signal = new AbortController().signal;
    expect(await elicitWithUserInterface(undefined, "s", request([]), signal)).toEqual({ action: "decline" });
    const url = { mode: "url" as const, message: "open", url: "https://x.example/", elicitationId: "1" };
    expect(await elicitWithUserInterface(undefined, "s", url, signal, "defaults")).toEqual({ action: "decline" });
    expect(await elicitWithUserInterface(undefined, "s", request([]), signal, "defaults")).toMatchObject({
      action: "accept",
    });
  });
});
