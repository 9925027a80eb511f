/** A timestamp (ms) as the person's local date and time. */
export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : new Date(ms).toLocaleString();
}
