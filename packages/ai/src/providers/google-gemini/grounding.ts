import type { Citation, ServerToolCall, ServerToolResult, TextContent } from "../../types.js";
import type { GeminiGroundingMetadata } from "./wire.js";

/** Whether the metadata says a search ran (Gemini sends `groundingMetadata: {}` on every chunk). */
export function hasGrounding(metadata: GeminiGroundingMetadata | undefined): metadata is GeminiGroundingMetadata {
  return !!metadata && ((metadata.webSearchQueries?.length ?? 0) > 0 || (metadata.groundingChunks?.length ?? 0) > 0);
}

/**
 * Gemini's grounding as gyre content: one `web_search` call with the queries, its result with
 * the pages (`groundingChunks`), and the citations (`groundingSupports`) of `text`, with offsets
 * found in that text (Google counts bytes of the whole response, not characters of a block).
 */
export function convertGrounding(
  metadata: GeminiGroundingMetadata,
  id: string,
  text: TextContent | undefined,
): { call: ServerToolCall; result: ServerToolResult; citations: Citation[] } {
  const pages = (metadata.groundingChunks ?? []).map((chunk) => ({
    url: chunk.web?.uri ?? "",
    ...(chunk.web?.title ? { title: chunk.web.title } : {}),
  }));
  const call: ServerToolCall = {
    type: "serverToolCall",
    id,
    name: "web_search",
    input: { queries: metadata.webSearchQueries ?? [] },
  };
  const result: ServerToolResult = {
    type: "serverToolResult",
    toolCallId: id,
    name: "web_search",
    results: pages.filter((page) => page.url !== ""),
  };
  const citations: Citation[] = [];
  for (const support of metadata.groundingSupports ?? []) {
    const cited = support.segment?.text;
    const start = cited && text ? text.text.indexOf(cited) : -1;
    for (const chunkIndex of support.groundingChunkIndices ?? []) {
      const page = pages[chunkIndex];
      if (!page?.url) continue;
      const citation: Citation = { ...page };
      if (cited) citation.citedText = cited;
      if (cited && start >= 0) Object.assign(citation, { startIndex: start, endIndex: start + cited.length });
      citations.push(citation);
    }
  }
  return { call, result, citations };
}
