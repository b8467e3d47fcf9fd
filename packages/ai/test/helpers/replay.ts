import type { ServerResponse } from "node:http";
import { expect } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "../../src/types.js";
import {
  type LocalServer,
  loadFixtureBody,
  splitBody,
  startLocalServer,
  type WireApi,
  writeChunks,
} from "./local-server.js";

/** What one replayed request produced. */
export type Replayed = { message: AssistantMessage; events: AssistantMessageEvent[] };

/**
 * Starts a local server that answers request N with recording N of `files` (folder `api`), the
 * last one for every later request, sent whole. The caller closes it.
 */
export function startFixtureServer(api: WireApi, ...files: string[]): Promise<LocalServer> {
  return startLocalServer(async (_request, response, index) => {
    const file = files[Math.min(index, files.length - 1)] ?? "";
    await writeChunks(response, [loadFixtureBody(`${api}/${file}`, api)], "text/event-stream");
  });
}

/**
 * Recordings up to this size are also replayed one byte per chunk, so that a chunk ends at every
 * byte of them. A byte per chunk costs an event-loop turn on both ends of the socket: the 660 KB
 * of recordings took about 30 s of CPU that way. Larger ones get two more seeded random cuttings
 * (chunks of 1 to 64 bytes) instead; the small recordings hold every kind of event the large ones do.
 */
export const BYTE_SPLIT_LIMIT = 8 * 1024;

/** The splits to replay a recording of `api` named `file` in: `seeds`, and byte by byte when it is small. */
export function splitsFor(api: WireApi, file: string, seeds: string[]): string[] {
  const size = loadFixtureBody(`${api}/${file}`, api).length;
  return size <= BYTE_SPLIT_LIMIT ? ["bytes", ...seeds] : [...seeds, "101", "202"];
}

/** The request headers that ask a replay server for `file` cut per `split` ("whole", "bytes" or a seed). */
export function replayHeaders(file: string, split: string): Record<string, string> {
  return { "x-fixture": file, "x-split": split };
}

/** A request as a replay server reads it: the recording's name, how to cut it, and its bytes. */
export type ReplayRequest = { file: string; split: string; body: Buffer };

/**
 * Starts a local server that answers each request with the recording of `api` named by its
 * `replayHeaders`, cut whole, byte by byte or in seeded random chunks; `.json` recordings go out
 * as application/json. `intercept` may answer a request itself first and returns true when it
 * did. The caller closes the server.
 */
export function startReplayServer(
  api: WireApi,
  intercept?: (request: ReplayRequest, response: ServerResponse) => boolean | Promise<boolean>,
): Promise<LocalServer> {
  return startLocalServer(async (request, response) => {
    const file = String(request.headers["x-fixture"]);
    const split = String(request.headers["x-split"]);
    const body = loadFixtureBody(`${api}/${file}`, api);
    if (await intercept?.({ file, split, body }, response)) return;
    const mode = split === "whole" || split === "bytes" ? split : { seed: Number(split) };
    const type = file.endsWith(".json") ? "application/json" : "text/event-stream";
    await writeChunks(response, splitBody(body, mode), type);
  });
}

/**
 * Replays once per split in `splits` and expects the same final message (timestamp aside) as
 * `whole`, and with `sameEvents` the same sequence of event types.
 */
export async function expectSameForEverySplit(
  replay: (split: string) => Promise<Replayed>,
  whole: Replayed,
  options: { splits: string[]; sameEvents?: boolean },
): Promise<void> {
  const comparable = (message: AssistantMessage) => ({ ...message, timestamp: 0 });
  const types = (events: AssistantMessageEvent[]) => events.map((event) => event.type).join();
  for (const split of options.splits) {
    const again = await replay(split);
    expect(comparable(again.message)).toEqual(comparable(whole.message));
    if (options.sameEvents) expect(types(again.events)).toBe(types(whole.events));
  }
}
