import type { AgentMessage } from "@gyre/agent";
import type { AssistantMessage, ToolResultMessage } from "@gyre/ai";
import { Marked } from "marked";
import type { SessionEntry } from "../../core/session/types.js";
import { describeWebSearches } from "../web-search-lines.js";
import { userMessageText } from "./chat-view.js";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const css = `body{font:14px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
.m{margin:1em 0;padding:.6em 1em;border-radius:6px}.user{background:#eef4ff}.assistant{background:#f7f7f7}
.tool{background:#fffbea;font-size:13px}.note{background:#eefaf0;font-size:13px}.error{color:#b00020}
pre{white-space:pre-wrap;word-break:break-word;margin:0;background:#f0f0f0;padding:.4em;border-radius:4px}
.thinking{color:#777;font-style:italic}.meta{font-size:12px;color:#666}.role{text-transform:uppercase}
.add{color:#116329;background:#e6ffec}.del{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}
.branch{border-left:3px solid #bf8700;padding-left:.6em;margin-left:0}.kw{color:#8250df}.str{color:#0a3069}
.com{color:#6e7781}summary{cursor:pointer;color:#555}`;

/** Markdown to HTML with raw HTML in the source shown as text: nothing the model wrote runs. */
const markdown = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    code: ({ text, lang }) => (lang === "diff" ? diffHtml(text) : `<pre><code>${highlightHtml(text)}</code></pre>`),
  },
});

/**
 * A standalone HTML page of a whole session file: every entry of every branch in file order
 * (so nothing before a compaction is lost; a reply to an earlier point is marked as a branch),
 * Markdown rendered, edits as diffs, tool output collapsible, times and costs. Everything the
 * model or a tool wrote is escaped; the page has no scripts and a CSP that forbids them.
 */
export function renderSessionHtml(options: { title: string; model: string; entries: readonly SessionEntry[] }): string {
  const { entries } = options;
  const previous = new Map<string, string | null>();
  let last: string | null = null;
  const parts: string[] = [];
  let cost = 0;
  for (const entry of entries) {
    // An entry whose parent is not the entry before it starts another branch.
    const branches = entry.parentId !== last && previous.size > 0;
    previous.set(entry.id, entry.parentId);
    last = entry.id;
    const html = renderEntry(entry);
    if (entry.type === "message" && entry.message.role === "assistant") cost += entry.message.usage.cost.total;
    if (entry.type === "compaction") cost += entry.usage?.cost.total ?? 0;
    if (html === "") continue;
    parts.push(
      branches ? `<div class="branch"><p class="meta">↳ a branch from an earlier point</p>${html}</div>` : html,
    );
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(options.title)}</title><style>${css}</style></head>
<body><h1>${escapeHtml(options.title)}</h1><p class="meta">model ${escapeHtml(options.model)} · ${entries.length} entries · total cost $${cost.toFixed(4)}</p>
${parts.join("\n")}
</body></html>
`;
}

function block(kind: string, label: string, timestamp: string, body: string): string {
  const time = timestamp ? ` · ${escapeHtml(timestamp.replace("T", " ").slice(0, 19))}` : "";
  return `<div class="m ${kind}"><div class="meta"><span class="role">${escapeHtml(label)}</span>${time}</div>${body}</div>`;
}

function pre(text: string, className = ""): string {
  return `<pre${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</pre>`;
}

function renderEntry(entry: SessionEntry): string {
  switch (entry.type) {
    case "message":
      return renderMessage(entry.message, entry.timestamp);
    case "compaction":
      return block(
        "note",
        "compaction",
        entry.timestamp,
        `<details><summary>Older messages were summarised (${entry.tokensBefore} tokens before)</summary>${markdown.parse(entry.summary) as string}</details>`,
      );
    case "branch_summary":
      return block("note", "branch summary", entry.timestamp, markdown.parse(entry.summary) as string);
    case "model_change":
      return block("note", "model", entry.timestamp, escapeHtml(`${entry.provider}/${entry.modelId}`));
    case "session_info":
      return block("note", "name", entry.timestamp, escapeHtml(entry.name));
    default:
      return "";
  }
}

function renderMessage(message: AgentMessage, timestamp: string): string {
  switch (message.role) {
    case "user":
      return block("user", "user", timestamp, pre(userMessageText(message)));
    case "assistant":
      return renderAssistant(message, timestamp);
    case "toolResult":
      return renderToolResult(message, timestamp);
    case "custom":
      return message.display ? block("tool", message.customType, timestamp, pre(userMessageText(message))) : "";
    default:
      return "";
  }
}

function renderAssistant(message: AssistantMessage, timestamp: string): string {
  const body = message.content
    .map((part) => {
      if (part.type === "text") return markdown.parse(part.text) as string;
      if (part.type === "thinking")
        return `<details><summary>thinking</summary>${pre(part.thinking, "thinking")}</details>`;
      if (part.type === "serverToolCall" || part.type === "serverToolResult") return "";
      return pre(`→ ${part.name} ${JSON.stringify(part.arguments)}`);
    })
    .join("");
  const searches = describeWebSearches(message);
  const search = searches.length > 0 ? pre(searches.join("\n")) : "";
  const error = message.errorMessage ? pre(message.errorMessage, "error") : "";
  const usage = message.usage;
  const label = `assistant${message.stopReason === "aborted" ? " (aborted)" : ""} · ↑${usage.input} ↓${usage.output} · $${usage.cost.total.toFixed(4)}`;
  return block("assistant", label, timestamp, search + body + error);
}

function renderToolResult(message: ToolResultMessage, timestamp: string): string {
  const text = message.content
    .map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`))
    .join("\n");
  const details = message.details as { diff?: unknown } | undefined;
  const diff = typeof details?.diff === "string" ? diffHtml(details.diff) : "";
  const lines = text.split("\n").length;
  const output = `<details${lines <= 10 && !diff ? " open" : ""}><summary>${escapeHtml(message.toolName)} output (${lines} line${lines === 1 ? "" : "s"})</summary>${pre(text, message.isError ? "error" : "")}</details>`;
  return block("tool", `${message.toolName} result`, timestamp, diff + output);
}

/** A unified diff with its lines coloured. */
function diffHtml(diff: string): string {
  const lines = diff.split("\n").map((line) => {
    const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
    return kind ? `<span class="${kind}">${escapeHtml(line)}</span>` : escapeHtml(line);
  });
  return `<pre class="diff">${lines.join("\n")}</pre>`;
}

const codeToken =
  /(\/\/.*$|#.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|\b(const|let|var|function|return|if|else|for|while|import|export|from|class|def|async|await|new|true|false|null|undefined)\b/gm;

/** Light code highlighting: comments, strings, keywords; the text is escaped piece by piece. */
function highlightHtml(code: string): string {
  let html = "";
  let at = 0;
  for (const match of code.matchAll(codeToken)) {
    const index = match.index ?? 0;
    html += escapeHtml(code.slice(at, index));
    const kind = match[1] ? "com" : match[2] ? "str" : "kw";
    html += `<span class="${kind}">${escapeHtml(match[0])}</span>`;
    at = index + match[0].length;
  }
  return html + escapeHtml(code.slice(at));
}
