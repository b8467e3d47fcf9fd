import { afterEach } from "vitest";

type Closable = { close(): Promise<unknown> };

/**
 * Registers an `afterEach` that closes, newest first, everything handed to the returned
 * function during the test (RPC clients before the servers they talk to).
 */
export function closeAfterEach(): <T extends Closable>(item: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });
  return (item) => {
    open.push(item);
    return item;
  };
}
