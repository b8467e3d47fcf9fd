import { setFlagsFromString } from "node:v8";

let prepared = false;

/**
 * Makes Node's `fetch` cheaper to start, for the whole process; call once a run will talk to a
 * model, before its first request. Idempotent; never throws.
 *
 * Why (start-up cost): fetch parses HTTP with llhttp compiled to WebAssembly, and V8 compiles that
 * module with its optimising tier too, on background threads the process waits for at exit:
 * ~30 MiB of peak RSS and ~40 ms per run for a parser that is nowhere near our bottleneck, so the
 * baseline tier (`--liftoff-only`) is enough. Node's built-in modules come with a code cache that
 * V8 rejects once a flag has changed, so fetch's own JavaScript is loaded first (creating a
 * `Response` loads it; the first request would anyway) to keep it from compiling from source.
 */
export function prepareFetch(): void {
  if (prepared) return;
  prepared = true;
  try {
    new Response("");
    setFlagsFromString("--liftoff-only");
  } catch {
    // Only a cost: fetch works the same with V8's default tiers.
  }
}
