/** The nearest-rank percentile `p` (0–100) of `sorted`, in ascending order; NaN when it is empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const index = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, index))] ?? Number.NaN;
}
