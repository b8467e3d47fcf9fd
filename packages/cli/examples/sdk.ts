/**
 * The whole coding agent in a program of your own: a scripted (faux) model reads a file, edits
 * it, and answers; the session lives in memory. Swap `model` for `provider`/`modelId` (and a key
 * in the environment) to use a real model.
 *
 * Runs as it is under a TypeScript runner (tsx, or Node >= 22.6 with type stripping) where `gyre`
 * is installed; packages/cli/test/sdk/example.test.ts bundles and runs it on every test run.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFauxModel } from "@gyre/ai/testing";
import { createAgentSession } from "gyre";

const cwd = await mkdtemp(join(tmpdir(), "gyre-sdk-"));
await writeFile(join(cwd, "greeting.txt"), "hello world\n");
const faux = createFauxModel([
  { content: [{ type: "toolCall", name: "read", arguments: { path: "greeting.txt" } }] },
  {
    content: [
      {
        type: "toolCall",
        name: "edit",
        arguments: { path: "greeting.txt", edits: [{ oldText: "world", newText: "gyre" }] },
      },
    ],
  },
  { content: [{ type: "text", text: "The greeting now says hello to gyre." }] },
]);

// gyre's own home (settings, sessions) lives apart from the workspace: the model may not write there.
const gyreHome = await mkdtemp(join(tmpdir(), "gyre-sdk-home-"));
const { session, dispose } = await createAgentSession({ cwd, model: faux.model, session: "memory", gyreHome });
session.subscribe((event) => {
  if (event.type === "tool_execution_start") console.log(`tool: ${event.toolName}`);
});
const result = await session.prompt("Greet gyre instead of the world in greeting.txt.");
console.log(`ended: ${result.reason}`);
console.log(`answer: ${session.getLastAssistantText()}`);
console.log(`file: ${(await readFile(join(cwd, "greeting.txt"), "utf8")).trim()}`);
await dispose();
await rm(cwd, { recursive: true, force: true });
await rm(gyreHome, { recursive: true, force: true });
