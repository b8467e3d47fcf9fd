/** "1 line", "2 lines": a count with its noun in the right number (regular plurals only). */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
