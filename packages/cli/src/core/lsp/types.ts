/**
 * Plain-JSON shapes of gyre's language-server diagnostics (docs/lsp.md): what a server said about
 * one file, already converted from LSP's 0-based positions and numeric severities.
 */

/** One language server of the `lsp` setting. */
export type LspServerSettings = {
  command: string;
  args?: string[];
  /** File name endings it serves, with the dot (".ts"); ".d.ts" works too. */
  extensions: string[];
  /** Names whose presence marks a project root; the nearest folder up to the workspace wins. */
  rootMarkers?: string[];
  initializationOptions?: unknown;
  /** How long one wait for the server (start, diagnostics) may take; default `DEFAULT_LSP_TIMEOUT_MS`. */
  timeoutMs?: number;
};

/** A server that has not answered by then is reported as not answering, never as a clean file. */
export const DEFAULT_LSP_TIMEOUT_MS = 5000;

/** LSP's severities by name; hints (unused-variable fades and such) are left out of results. */
export type DiagnosticSeverity = "error" | "warning" | "info";

export type FileDiagnostic = {
  /** 1-based, as editors and compilers print them. */
  line: number;
  /** 1-based, in UTF-16 code units as LSP counts them. */
  column: number;
  severity: DiagnosticSeverity;
  message: string;
  /** The server's code for it ("2322"), when it gives one. */
  code?: string;
};

/** What asking a server for a file's diagnostics came to. */
export type DiagnosticsAnswer =
  | { type: "diagnostics"; diagnostics: FileDiagnostic[] }
  /** No answer within `timeoutMs`: nothing is known about the file. */
  | { type: "timeout"; timeoutMs: number }
  /** The server could not start or stopped: one sentence saying which and why. */
  | { type: "unavailable"; reason: string };
