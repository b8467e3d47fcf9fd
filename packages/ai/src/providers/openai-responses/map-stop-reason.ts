import type { StopReason } from "../../types.js";

/**
 * Maps a Responses API final status (and `incomplete_details.reason`) to a gyre stop reason.
 * Never throws: an unknown status is `toolUse` when the response has function calls, else `stop`.
 */
export function mapResponsesStopReason(
  status: string,
  incompleteReason: string | undefined,
  hasToolCalls: boolean,
): StopReason {
  const normal: StopReason = hasToolCalls ? "toolUse" : "stop";
  switch (status) {
    case "completed":
      return normal;
    case "incomplete":
      if (incompleteReason === "max_output_tokens") return "length";
      if (incompleteReason === "content_filter") return "error";
      return normal;
    case "failed":
    case "cancelled":
      return "error";
    default:
      return normal;
  }
}
