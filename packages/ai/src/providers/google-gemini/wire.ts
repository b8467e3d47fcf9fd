/**
 * The subset of Gemini's `generateContent` wire format that gyre sends and reads
 * (https://ai.google.dev/api/generate-content). Response types are loose on purpose: Google and
 * Vertex add part kinds and fields over time, and unknown ones must pass through harmlessly.
 */

/** One streamed argument fragment of a Vertex function call (`streamFunctionCallArguments`). */
export type GeminiPartialArg = {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
};

export type GeminiFunctionCall = {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  partialArgs?: GeminiPartialArg[];
  willContinue?: boolean;
};

export type GeminiFunctionResponse = {
  id?: string;
  name: string;
  response: Record<string, unknown>;
};

export type GeminiPart = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  executableCode?: unknown;
  codeExecutionResult?: unknown;
};

export type GeminiContent = { role: "user" | "model"; parts: GeminiPart[] };

export type GeminiFunctionDeclaration = {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
};

export type GeminiThinkingConfig = { includeThoughts?: boolean; thinkingBudget?: number };

export type GeminiRequest = {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: ({ functionDeclarations: GeminiFunctionDeclaration[] } | { googleSearch: Record<string, never> })[];
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    thinkingConfig?: GeminiThinkingConfig;
  };
};

export type GeminiUsageMetadata = {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
};

/** Google Search grounding of a candidate (`googleSearch` tool). */
export type GeminiGroundingMetadata = {
  webSearchQueries?: string[];
  groundingChunks?: { web?: { uri?: string; title?: string } }[];
  groundingSupports?: {
    segment?: { startIndex?: number; endIndex?: number; text?: string };
    groundingChunkIndices?: number[];
  }[];
};

export type GeminiCandidate = {
  content?: { role?: string; parts?: GeminiPart[] };
  groundingMetadata?: GeminiGroundingMetadata;
  finishReason?: string;
  finishMessage?: string;
};

/** One element of the response stream (an SSE `data:` payload or a JSON-array element). */
export type GeminiChunk = {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  usageMetadata?: GeminiUsageMetadata;
  responseId?: string;
  modelVersion?: string;
  /** An error object inside a 200 stream. */
  error?: { code?: number; message?: string; status?: string };
};
