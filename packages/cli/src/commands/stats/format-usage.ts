/** How usage figures are written in the terminal and in the stats page. */

/** USD with cents, or four decimals under a dollar. */
export function formatCost(cost: number): string {
  return `$${cost >= 1 ? cost.toFixed(2) : cost.toFixed(4)}`;
}

/** A token count, short: 950, 12.3k, 4.56M. */
export function formatCount(count: number): string {
  if (count < 1000) return String(Math.round(count));
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(2)}M`;
}

/** A percentage with one decimal. */
export function formatRatio(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}
