export type FakeReply = {
  text?: string;
  /** OpenAI wire only: streamed as `reasoning_content` before the text. */
  reasoning?: string;
  toolCalls?: { id?: string; name: string; arguments: unknown }[];
  status?: number;
  error?: string;
  headers?: Record<string, string>;
  chunkSize?: number;
  /** Characters of tool-call argument JSON per streamed chunk (default 16). */
  argumentChunkSize?: number;
  delayMs?: number;
  finishReason?: string;
  midStreamError?: string;
  hang?: boolean;
  usage?: Record<string, number>;
};
export type FakeBody = {
  model?: string;
  messages?: { role: string; content: unknown; [key: string]: unknown }[];
  system?: unknown;
  [key: string]: unknown;
};
export type FakeRequest = {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: FakeBody;
  arrivedAt: number;
};
export type FakeModelServer = { url: string; requests: FakeRequest[]; close(): Promise<void> };
export function startFakeModelServer(options: {
  respond: (request: { path: string; body: FakeBody; index: number }) => FakeReply | Promise<FakeReply>;
}): Promise<FakeModelServer>;
