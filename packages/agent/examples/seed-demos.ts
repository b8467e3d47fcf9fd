/**
 * The seed demos (`npm run demo`): the scripted sessions gyre's design comes from, run on the
 * faux model with real tools in a fresh temporary directory, printed turn by turn. Output is
 * deterministic (no paths, no timings) so a golden test can compare it. scripts/demo.mjs bundles
 * this file from source and calls `runSeedDemos`.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentEvent, type AgentMessage, type AnyAgentTool } from "@gyre/agent";
import type { Context, ToolResultMessage } from "@gyre/ai";
import { createFauxModel, type FauxResponse, type FauxScriptItem } from "@gyre/ai/testing";
import { calcTool } from "./calc-tool.js";
import { createReadFileTool, createWriteTool } from "./file-tools.js";

const print = (line: string) => process.stdout.write(`${line}\n`);

/** The last tool result the model was sent: scripted answers quote it, so they depend on the tools. */
function lastResult(context: Context): ToolResultMessage | undefined {
  return context.messages.findLast((message): message is ToolResultMessage => message.role === "toolResult");
}

const resultText = (result: ToolResultMessage | undefined) =>
  (result?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");

const say = (text: string): FauxResponse => ({ content: [{ type: "text", text }] });
const call = (text: string, name: string, args: Record<string, unknown>): FauxResponse => ({
  content: [
    { type: "text", text },
    { type: "toolCall", name, arguments: args },
  ],
});

/** Prints one run turn by turn: `[turn N]`, assistant text, tool calls and results. */
function createPrinter(): (event: AgentEvent) => void {
  let turn = 0;
  return (event) => {
    if (event.type === "agent_start") turn = 0;
    else if (event.type === "turn_start") print(`[turn ${++turn}]`);
    else if (event.type === "budget_reached") print(`[budget] ${event.reason}`);
    else if (event.type === "message_end") printMessage(event.message);
  };
}

function printMessage(message: AgentMessage): void {
  if (message.role === "user") print(`> ${typeof message.content === "string" ? message.content : "(content)"}`);
  if (message.role === "assistant") {
    for (const block of message.content) {
      if (block.type === "text") print(block.text);
      if (block.type === "toolCall") print(`[tool call] ${block.name} ${JSON.stringify(block.arguments)}`);
    }
    if (message.errorMessage) print(`[error] ${message.errorMessage}`);
  }
  if (message.role === "toolResult") {
    const lines = resultText(message).split("\n");
    const shown =
      lines.length > 8 ? [...lines.slice(0, 2), `  … (${lines.length - 3} more lines)`, ...lines.slice(-1)] : lines;
    print(`[tool result] ${message.toolName} → ${shown.join("\n    ")}${message.isError ? " (error)" : ""}`);
  }
}

async function runDemo(options: {
  title: string;
  tools: AnyAgentTool[];
  script: FauxScriptItem[];
  prompts: string[];
}): Promise<AgentMessage[]> {
  print(`\n=== ${options.title} ===`);
  const faux = createFauxModel(options.script);
  const agent = new Agent({ model: faux.model, tools: options.tools, systemPrompt: "You are a careful assistant." });
  agent.subscribe(createPrinter());
  for (const prompt of options.prompts) await agent.prompt(prompt);
  if (faux.remaining() !== 0)
    throw new Error(`${options.title}: ${faux.remaining()} scripted responses were not used.`);
  return agent.state.messages;
}

/**
 * Runs the four seed demos in a fresh temporary directory (removed afterwards) and prints them to
 * stdout. Rejects when a demo does not end as scripted.
 */
export async function runSeedDemos(): Promise<void> {
  const cwd = await mkdtemp(join(tmpdir(), "gyre-demo-"));
  try {
    const workdir = join(cwd, "proj");
    await mkdir(workdir);
    await runDemo({
      title: "1. calculator",
      tools: [calcTool],
      prompts: ["What is 12*8?", "What is 1 divided by zero?"],
      script: [
        call("I'll compute that.", "calc", { expression: "12*8" }),
        (context) => say(`12*8 = ${resultText(lastResult(context))}.`),
        call("Let me try it.", "calc", { expression: "1/0" }),
        (context) => {
          const result = lastResult(context);
          return say(
            result?.isError
              ? `The calculator refused: ${resultText(result)} Dividing by zero has no answer.`
              : "Unexpectedly, it worked.",
          );
        },
      ],
    });

    await runDemo({
      title: "2. self-correction",
      tools: [calcTool],
      prompts: ["Add 1 and 1."],
      script: [
        call("Calculating.", "calc", { expr: "1+1" }),
        (context) =>
          lastResult(context)?.isError
            ? call("I used the wrong argument name; re-issuing with `expression`.", "calc", { expression: "1+1" })
            : say("That worked the first time."),
        (context) => say(`1 + 1 = ${resultText(lastResult(context))}.`),
      ],
    });

    const notes = Array.from({ length: 250 }, (_, index) => `note ${index + 1}: keep going`).join("\n");
    await writeFile(join(workdir, "notes.txt"), `${notes}\n`);
    await runDemo({
      title: "3. boundary",
      tools: [createReadFileTool({ cwd: workdir })],
      prompts: ["Show me /etc/hosts via a relative path, then skim notes.txt."],
      script: [
        call("Reading it.", "read_file", { path: "../../../etc/hosts" }),
        call("That path is outside the project, so I can't read it. Now the notes.", "read_file", {
          path: "notes.txt",
        }),
        (context) => {
          const notice = resultText(lastResult(context)).split("\n").at(-1) ?? "";
          return say(`I only see part of notes.txt: ${notice}`);
        },
      ],
    });

    const messages = await runDemo({
      title: "4. write",
      tools: [createWriteTool({ cwd: workdir })],
      prompts: ["Write 'hello from the tools example' to out.txt."],
      script: [
        call("Writing the file.", "write", { path: "out.txt", content: "hello from the tools example" }),
        (context) => say(`Done: ${resultText(lastResult(context))}`),
      ],
    });
    const size = (await stat(join(workdir, "out.txt"))).size;
    print(`[check] out.txt has ${size} bytes`);
    print(`[check] the run has ${messages.length} messages: ${messages.map((message) => message.role).join(", ")}`);
    if (size !== 28 || messages.length !== 4) throw new Error("The write demo did not produce what it should.");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
