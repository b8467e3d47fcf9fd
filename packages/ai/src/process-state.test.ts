import { describe, expect, it, vi } from "vitest";
import { processStateLayout, processStateOn } from "./process-state.js";

type Ai = typeof import("./index.js");
type Testing = typeof import("./testing.js");

/** A fresh instance of the package's modules, as a second bundled copy would be. */
async function loadCopy(): Promise<{ ai: Ai; testing: Testing }> {
  vi.resetModules();
  const ai = await import("./index.js");
  const testing = await import("./testing.js");
  return { ai, testing };
}

const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 0 }] };

describe("one registry per process, whichever copy of @gyre/ai registered", () => {
  it("a faux model made by one copy answers through another copy's stream()", async () => {
    const first = await loadCopy();
    const second = await loadCopy();
    expect(second.ai.stream).not.toBe(first.ai.stream);
    const faux = first.testing.createFauxModel([{ content: [{ type: "text", text: "from the first copy" }] }]);
    const message = await second.ai.complete(faux.model, context);
    expect(message.errorMessage).toBeUndefined();
    expect(message.content).toEqual([{ type: "text", text: "from the first copy" }]);
    // A model copied as data (no hidden link to its script) still finds the script by its key.
    const other = second.testing.createFauxModel([{ content: [{ type: "text", text: "second" }] }]);
    expect(other.model.baseUrl).not.toBe(faux.model.baseUrl);
    const copied = await first.ai.complete({ ...other.model }, context);
    expect(copied.content).toEqual([{ type: "text", text: "second" }]);
  });

  it("a provider and an API registered through one copy are known to the other; a later copy keeps them", async () => {
    const first = await loadCopy();
    first.ai.registerProvider({ name: "my-local", api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1" }, []);
    const custom = first.testing.streamFaux;
    first.ai.registerApi("openai-completions", custom);
    const second = await loadCopy();
    expect(second.ai.getModel("my-local", "m").baseUrl).toBe("http://127.0.0.1:9/v1");
    expect(second.ai.getRegisteredApis()).toEqual(expect.arrayContaining(["faux", "openai-completions"]));
    // The second copy's built-in registration did not replace the program's own stream function.
    const faux = second.testing.createFauxModel([{ content: [{ type: "text", text: "custom" }] }]);
    const message = await second.ai.complete({ ...faux.model, api: "openai-completions" }, context);
    expect(message.content).toEqual([{ type: "text", text: "custom" }]);
  });

  it("refuses to share state laid out by an incompatible copy, in one sentence", () => {
    const holder = {};
    expect(processStateOn(holder).layout).toBe(processStateLayout);
    expect(processStateOn(holder)).toBe(processStateOn(holder));
    const foreign = {};
    Object.defineProperty(foreign, Symbol.for("gyre.ai.registry"), { value: { layout: 99, slots: new Map() } });
    expect(() => processStateOn(foreign)).toThrow(
      `Two incompatible copies of @gyre/ai are loaded in this process (shared state layout 99 and ${processStateLayout}); install versions of @gyre/ai, @gyre/agent and gyre from the same release.`,
    );
  });
});
