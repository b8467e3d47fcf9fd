/**
 * The input of `gyre eval`: a JSONL file, one task a line —
 * `{"id", "prompt", "folder" | "git": {"url", "ref"?}, "check", "tools"?, "maxTurns"?}` — and the
 * variants to compare: each `--build` (a gyre bin, default this one) × each `--model`
 * (`provider/model-id`; the part after the first "/" is the id, so ids may hold "/" themselves).
 * A relative folder is relative to the tasks file. Bad input is one sentence naming the line.
 */
import * as nodePath from "node:path";
import { CliError } from "gyre/fleet-support";
import type { WorkspaceSource } from "./workspace-copy.js";

export type EvalTask = {
  id: string;
  prompt: string;
  source: WorkspaceSource;
  /** A shell command run in the run's folder afterwards; exit 0 is a pass. */
  check: string;
  tools?: string[];
  maxTurns?: number;
};

export type EvalModel = { label: string; provider?: string; model?: string };

/** One build × model combination; its label names it in the results. */
export type EvalVariant = { label: string; gyreBin: string; model: EvalModel };

/** Parses the tasks file's text; throws a `CliError` naming the first bad line. */
export function parseEvalTasks(text: string, tasksFile: string): EvalTask[] {
  const tasks: EvalTask[] = [];
  const base = nodePath.dirname(nodePath.resolve(tasksFile));
  for (const [index, raw] of text.split("\n").entries()) {
    if (raw.trim() === "" || raw.trimStart().startsWith("//")) continue;
    const where = `${tasksFile} line ${index + 1}`;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new CliError("bad_usage", `${where} is not JSON; each line is one task object.`);
    }
    tasks.push(parseTask(record, where, base, tasks.length));
  }
  if (tasks.length === 0) throw new CliError("bad_usage", `${tasksFile} holds no tasks.`);
  const ids = new Set<string>();
  for (const task of tasks) {
    if (ids.has(task.id)) throw new CliError("bad_usage", `${tasksFile}: task id "${task.id}" is used twice.`);
    ids.add(task.id);
  }
  return tasks;
}

function parseTask(record: Record<string, unknown>, where: string, base: string, index: number): EvalTask {
  const bad = (what: string) => new CliError("bad_usage", `${where}: ${what}.`);
  if (typeof record !== "object" || record === null || Array.isArray(record)) throw bad("a task is a JSON object");
  if (typeof record.prompt !== "string" || record.prompt.trim() === "")
    throw bad('"prompt" must be a non-empty string');
  if (typeof record.check !== "string" || record.check.trim() === "") throw bad('"check" must be a shell command');
  const git = record.git as { url?: unknown; ref?: unknown } | undefined;
  let source: WorkspaceSource;
  if (typeof record.folder === "string" && git === undefined)
    source = { folder: nodePath.resolve(base, record.folder) };
  else if (git !== undefined && record.folder === undefined && typeof git?.url === "string") {
    if (git.ref !== undefined && typeof git.ref !== "string") throw bad('"git.ref" must be a string');
    source = { git: { url: git.url, ...(git.ref === undefined ? {} : { ref: git.ref as string }) } };
  } else throw bad('give either "folder" (a path) or "git" ({"url", "ref"?})');
  const tools = record.tools;
  if (tools !== undefined && (!Array.isArray(tools) || !tools.every((tool) => typeof tool === "string")))
    throw bad('"tools" must be a list of tool names');
  const maxTurns = record.maxTurns;
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || (maxTurns as number) < 1))
    throw bad('"maxTurns" must be a whole number of 1 or more');
  return {
    id: typeof record.id === "string" && record.id !== "" ? record.id : `task-${index + 1}`,
    prompt: record.prompt,
    source,
    check: record.check,
    ...(tools === undefined ? {} : { tools: tools as string[] }),
    ...(maxTurns === undefined ? {} : { maxTurns: maxTurns as number }),
  };
}

/** `provider/model-id`, or a bare model id (the provider then comes from settings). */
export function parseEvalModel(spec: string): EvalModel {
  const slash = spec.indexOf("/");
  if (slash === -1) return { label: spec, model: spec };
  const provider = spec.slice(0, slash);
  const model = spec.slice(slash + 1);
  if (provider === "" || model === "")
    throw new CliError("bad_usage", `--model ${spec}: write provider/model-id (for example openai/gpt-4o).`);
  return { label: spec, provider, model };
}

/** `label=path/to/gyre.js`, or a bare path (its label is the path). */
export function parseEvalBuild(spec: string, cwd: string): { label: string; gyreBin: string } {
  const equals = spec.indexOf("=");
  const [label, path] = equals === -1 ? [spec, spec] : [spec.slice(0, equals), spec.slice(equals + 1)];
  if (label === "" || path === "") throw new CliError("bad_usage", `--build ${spec}: write label=path/to/gyre.js.`);
  return { label, gyreBin: nodePath.resolve(cwd, path) };
}
