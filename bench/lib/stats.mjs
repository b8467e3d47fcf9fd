// Small statistics for benchmark samples: medians resist the odd slow run on a shared 2-core box,
// and min–max shows how much the box wandered while we measured.

/** The median of `values` (mean of the middle two for an even count); NaN for none. */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The value at quantile `q` (0..1) by nearest rank; NaN for none. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** `{ median, min, max, n }` of a sample; undefined for none, so a missing side stays visibly empty. */
export function summarize(values) {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}
