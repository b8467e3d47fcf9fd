import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";

/**
 * Writes a v1 session file holding `count` messages (alternating user and assistant, a few
 * lines each), for tests that need a long history. Returns the file's path.
 */
export async function writeHistorySession(options: { path: string; cwd: string; count: number }): Promise<string> {
  const timestamp = new Date().toISOString();
  const lines = [JSON.stringify({ type: "session", version: 1, id: randomUUID(), timestamp, cwd: options.cwd })];
  let parentId: string | null = null;
  for (let index = 0; index < options.count; index++) {
    const id = index.toString(16).padStart(8, "0");
    const message =
      index % 2 === 0
        ? { role: "user", content: `question ${index}: what about item ${index}?`, timestamp: Date.now() }
        : {
            role: "assistant",
            content: [{ type: "text", text: `Answer ${index}.\n\n- point one of ${index}\n- point two\n\nDone.` }],
            api: "openai-completions",
            provider: "openai",
            model: "gpt-4o",
            usage: {
              input: 10,
              output: 10,
              cacheRead: 0,
              cacheWrite: 0,
              totalTokens: 20,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: "stop",
            timestamp: Date.now(),
          };
    lines.push(JSON.stringify({ type: "message", id, parentId, timestamp, message }));
    parentId = id;
  }
  await writeFile(options.path, `${lines.join("\n")}\n`);
  return options.path;
}
