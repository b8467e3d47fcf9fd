/** LSP's and the TypeScript server's diagnostics as gyre's plain `FileDiagnostic`s. */
import { extname } from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import type { DiagnosticSeverity, FileDiagnostic } from "./types.js";

const severities: Record<number, DiagnosticSeverity | undefined> = { 1: "error", 2: "warning", 3: "info" };

/** An LSP diagnostic (0-based), or undefined for a hint; a missing severity counts as an error, as editors show it. */
export function convertDiagnostic(diagnostic: Diagnostic): FileDiagnostic | undefined {
  const severity = severities[diagnostic.severity ?? 1];
  if (!severity) return undefined;
  return {
    line: diagnostic.range.start.line + 1,
    column: diagnostic.range.start.character + 1,
    severity,
    message: typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value,
    ...(diagnostic.code === undefined ? {} : { code: String(diagnostic.code) }),
  };
}

const tsserverCategories: Record<string, DiagnosticSeverity | undefined> = {
  error: "error",
  warning: "warning",
  message: "info",
};

/**
 * The body of a tsserver `*DiagnosticsSync` answer (1-based `start.line`/`start.offset`, `text`,
 * `category`), as typescript-language-server's `typescript.tsserverRequest` command returns it.
 * Anything not of that shape is skipped: the answer is another program's.
 */
export function convertTsserverDiagnostics(response: unknown): FileDiagnostic[] {
  const body = (response as { body?: unknown } | null)?.body;
  if (!Array.isArray(body)) return [];
  return body.flatMap((item: unknown): FileDiagnostic[] => {
    const entry = item as {
      start?: { line?: unknown; offset?: unknown };
      text?: unknown;
      code?: unknown;
      category?: unknown;
    };
    const severity = tsserverCategories[String(entry.category)];
    const line = entry.start?.line;
    const column = entry.start?.offset;
    if (!severity || typeof line !== "number" || typeof column !== "number" || typeof entry.text !== "string")
      return [];
    return [
      {
        line,
        column,
        severity,
        message: entry.text,
        ...(entry.code === undefined ? {} : { code: String(entry.code) }),
      },
    ];
  });
}

const languageIds: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".pyi": "python",
  ".sh": "shellscript",
  ".rs": "rust",
  ".go": "go",
};

/** The LSP language id for a file: the usual one for its ending, else the ending without its dot. */
export function languageIdOf(uri: string): string {
  const ending = extname(uri).toLowerCase();
  return languageIds[ending] ?? ending.slice(1);
}
