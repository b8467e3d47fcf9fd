/**
 * State that must be one per process, whichever copy of @gyre/ai holds it. `gyre` bundles its own
 * copy of this package, so an integrator who imports `@gyre/ai` next to `gyre` loads it twice; if
 * each copy kept its own API registry, default model registry and faux scripts, a model or
 * provider registered through one would be unknown to the other (the dual-package hazard, see
 * docs/design/packages.md#one-registry-per-process). Every copy keeps such state in a named slot
 * of one object on `globalThis`, under a symbol from the global symbol registry.
 */

const key = Symbol.for("gyre.ai.registry");

/**
 * The shape of the shared object and of what its slots hold. Raise it whenever either changes: a
 * copy meeting another layout refuses to load instead of reading state it does not understand.
 */
export const processStateLayout = 1;

export type ProcessState = { layout: number; slots: Map<string, unknown> };

/** The shared state on `holder` (`globalThis` outside tests), created there on first use. */
export function processStateOn(holder: object): ProcessState {
  const existing = (holder as { [key]?: ProcessState })[key];
  if (existing === undefined) {
    const created: ProcessState = { layout: processStateLayout, slots: new Map() };
    Object.defineProperty(holder, key, { value: created, enumerable: false, writable: false, configurable: false });
    return created;
  }
  if (existing.layout !== processStateLayout) {
    throw new Error(
      `Two incompatible copies of @gyre/ai are loaded in this process (shared state layout ${existing.layout} and ${processStateLayout}); install versions of @gyre/ai, @gyre/agent and gyre from the same release.`,
    );
  }
  return existing;
}

/**
 * The process-wide value of slot `name`, created by `create` in the first copy that asks. Callers
 * keep the value's type stable for a given `processStateLayout`.
 */
export function processSlot<T>(name: string, create: () => T): T {
  const { slots } = processStateOn(globalThis);
  if (!slots.has(name)) slots.set(name, create());
  return slots.get(name) as T;
}
