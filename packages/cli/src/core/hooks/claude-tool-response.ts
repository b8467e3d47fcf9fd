/**
 * `tool_response` for PostToolUse (docs/hooks.md#events-and-their-input): gyre's own fields
 * (`output`, `isError`, `success`, `details`) plus the fields Claude Code's hooks read for the
 * tools gyre has in common with it, filled from what gyre's tools report.
 */

type Details = Record<string, unknown> | undefined;

/**
 * The response object for a call that succeeded. `toolName` is gyre's; `toolInput` is the hook's
 * `tool_input` (with Claude's `file_path`); `output` is the text the model receives.
 */
export function claudeToolResponse(options: {
  toolName: string;
  toolInput: Record<string, unknown>;
  output: string;
  details: unknown;
}): Record<string, unknown> {
  const { toolName, toolInput, output } = options;
  const details = isRecord(options.details) ? options.details : undefined;
  const filePath = typeof toolInput.file_path === "string" ? toolInput.file_path : undefined;
  return {
    output,
    isError: false,
    success: true,
    ...(filePath !== undefined ? { filePath } : {}),
    ...(options.details !== undefined ? { details: options.details } : {}),
    ...claudeFields(toolName, toolInput, output, details),
  };
}

function claudeFields(
  toolName: string,
  toolInput: Record<string, unknown>,
  output: string,
  details: Details,
): Record<string, unknown> {
  switch (toolName) {
    // gyre's bash gives one stream, stdout and stderr interleaved as the command wrote them.
    case "bash":
      return { stdout: output, stderr: "", interrupted: false, isImage: false };
    case "write":
      return {
        ...(typeof details?.created === "boolean" ? { type: details.created ? "create" : "update" } : {}),
        content: toolInput.content,
      };
    case "edit":
      return typeof toolInput.old_string === "string"
        ? { oldString: toolInput.old_string, newString: toolInput.new_string, replaceAll: false }
        : {};
    case "read":
      return details?.kind === "text" ? { type: "text", file: readFile(toolInput, output, details) } : {};
    default:
      return {};
  }
}

function readFile(toolInput: Record<string, unknown>, output: string, details: Details): Record<string, unknown> {
  const startLine = typeof details?.startLine === "number" ? details.startLine : 1;
  const endLine = typeof details?.endLine === "number" ? details.endLine : startLine - 1;
  return {
    filePath: toolInput.file_path,
    content: output,
    numLines: Math.max(0, endLine - startLine + 1),
    startLine,
    totalLines: details?.totalLines,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
