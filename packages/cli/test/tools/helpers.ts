/** Shared helpers for the coding-tool tests: temp workspaces and tool contexts. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import type { AgentToolResult, ToolExecutionContext } from "@gyre/agent";

/** A fresh directory under the OS temp dir (real path), removed by `cleanup`. */
export async function createTempDir(prefix = "gyre-tools-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(nodePath.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A tool context with its own signal. */
export function toolContext(
  signal: AbortSignal = new AbortController().signal,
  onUpdate?: (result: AgentToolResult) => void,
): ToolExecutionContext {
  return { toolCallId: "call-1", signal, onUpdate };
}

/** The text of a result's first text block. */
export function textOf(result: AgentToolResult): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error(`Expected text content, got ${JSON.stringify(first)}`);
  return first.text;
}
