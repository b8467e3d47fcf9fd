import type { AgentMessage } from "@gyre/agent";
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

const css = `body{font:14px/1.5 system-ui,sans-serif;max-width:900px;margin:2em auto;padding:0 1em;color:#222}
.m{margin:1em 0;padding:.6em 1em;border-radius:6px}.user{background:#eef4ff}.assistant{background:#f7f7f7}
.tool{background:#fffbea;font-size:13px}.error{color:#b00020}pre{white-space:pre-wrap;word-break:break-word;margin:0}
.thinking{color:#777;font-style:italic}.role{font-size:12px;color:#666;text-transform:uppercase}`;

/**
 * A standalone HTML page of the conversation. Every piece of message text is escaped and shown
 * preformatted, so nothing a model or tool wrote can run or restyle the page; no scripts.
 */
export function renderSessionHtml(options: {
  title: string;
  model: string;
  messages: readonly AgentMessage[];
}): string {
  const parts = options.messages.map(renderMessage).filter((part) => part !== "");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(options.title)}</title><style>${css}</style></head>
<body><h1>${escapeHtml(options.title)}</h1><p class="role">model ${escapeHtml(options.model)}</p>
${parts.join("\n")}
</body></html>
`;
}

function block(kind: string, label: string, body: string): string {
  return `<div class="m ${kind}"><div class="role">${escapeHtml(label)}</div>${body}</div>`;
}

function pre(text: string, className = ""): string {
  return `<pre${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</pre>`;
}

function renderMessage(message: AgentMessage): string {
  switch (message.role) {
    case "user":
      return block("user", "user", pre(userMessageText(message)));
    case "assistant": {
      const body = message.content
        .map((part) => {
          if (part.type === "text") return pre(part.text);
          if (part.type === "thinking") return pre(part.thinking, "thinking");
          return pre(`→ ${part.name} ${JSON.stringify(part.arguments)}`);
        })
        .join("");
      const error = message.errorMessage ? pre(message.errorMessage, "error") : "";
      return block("assistant", `assistant${message.stopReason === "aborted" ? " (aborted)" : ""}`, body + error);
    }
    case "toolResult": {
      const text = message.content
        .map((part) => (part.type === "text" ? part.text : `[image ${part.mimeType}]`))
        .join("\n");
      return block("tool", `${message.toolName} result`, pre(text, message.isError ? "error" : ""));
    }
    case "custom":
      return message.display ? block("tool", message.customType, pre(userMessageText(message))) : "";
    default: {
      const never: never = message;
      throw new Error(`Unknown message ${JSON.stringify(never)}`);
    }
  }
}
