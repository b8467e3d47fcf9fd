/**
 * Deeply frozen JSON values that gyre made itself. Caches keyed by such a value (a converted
 * message, a tool call's parsed arguments) can trust it never changes: changing it in place throws.
 */

const frozen = new WeakSet<object>();

/** Freezes `value` and everything in it; returns `value`. Call only on values this code created. */
export function freezeJson<T>(value: T): T {
  if (typeof value !== "object" || value === null || frozen.has(value)) return value;
  for (const item of Object.values(value)) freezeJson(item);
  Object.freeze(value);
  frozen.add(value);
  return value;
}

/** Whether `value` went through {@link freezeJson} (a caller's own frozen object does not count). */
export function isFrozenJson(value: unknown): boolean {
  return typeof value === "object" && value !== null && frozen.has(value);
}
