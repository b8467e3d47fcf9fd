/**
 * What each connected MCP server offers as resources, for `@server:` completion in the editor:
 * listed once per server (`resources/list`, every page up to a bound) and kept until the server
 * says its list changed (`notifications/resources/list_changed`) or reconnects. Typing stays
 * instant: later keystrokes share the cached list instead of asking the server again.
 */
import { stripToOneLine } from "./convert-result.js";
import type { McpConnection } from "./mcp-connection.js";

/** One resource as the completion menu shows it. */
export type McpResourceEntry = { uri: string; name: string; description?: string };

/** The resources of the servers, as the editor's completion asks for them. */
export type McpResourceCatalog = {
  /** Connected servers that offer resources, by name. */
  servers(): string[];
  /** The resources of `server` (cached); empty when it is not connected or listing failed. */
  resources(server: string): Promise<McpResourceEntry[]>;
  /** Forgets the cached list of `server` (its list changed or it reconnected). */
  invalidate(server: string): void;
};

/** Above this many resources a server's list is cut: a completion menu cannot show more anyway. */
const maxResources = 2000;

/** The catalog over `connections` (looked up at each call, so restarts are followed). */
export function createMcpResourceCatalog(connections: () => McpConnection[]): McpResourceCatalog {
  const cache = new Map<string, Promise<McpResourceEntry[]>>();
  const withResources = () =>
    connections().filter((connection) => connection.client()?.getServerCapabilities()?.resources !== undefined);
  return {
    servers: () => withResources().map((connection) => connection.name),
    resources(server) {
      const connection = withResources().find((candidate) => candidate.name === server);
      if (!connection) return Promise.resolve([]);
      let listed = cache.get(server);
      if (!listed) {
        listed = listAll(connection).catch(() => {
          // A failed listing is not kept: the next keystroke asks again.
          cache.delete(server);
          return [];
        });
        cache.set(server, listed);
      }
      return listed;
    },
    invalidate: (server) => cache.delete(server),
  };
}

async function listAll(connection: McpConnection): Promise<McpResourceEntry[]> {
  const client = connection.client();
  if (!client) return [];
  const found: McpResourceEntry[] = [];
  let cursor: string | undefined;
  do {
    // Not tied to one keystroke's signal: the list is shared by the keystrokes after it.
    const page = await client.listResources(cursor ? { cursor } : {}, { timeout: 10_000 });
    for (const resource of page.resources)
      found.push({
        // The URI is kept as sent: it is what resources/read must be asked for.
        uri: resource.uri,
        name: stripToOneLine(resource.title ?? resource.name),
        ...(resource.description ? { description: stripToOneLine(resource.description) } : {}),
      });
    cursor = page.nextCursor;
  } while (cursor && found.length < maxResources);
  return found.slice(0, maxResources);
}
