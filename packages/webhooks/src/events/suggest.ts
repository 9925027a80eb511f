import { EVENT_TYPES } from './catalogue';

/** Edits (insert, delete, substitute, swap of neighbours) between two short strings. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The catalogue name closest to a misspelt one (case ignored), when it is close enough to be a typo: at
 * most a third of the name's length in edits, and never more than 4.
 */
export function closestEventType(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: { type: string; edits: number } | undefined;
  for (const type of EVENT_TYPES) {
    const edits = distance(lower, type);
    if (best === undefined || edits < best.edits) best = { type, edits };
  }
  if (best === undefined) return undefined;
  return best.edits <= Math.min(4, Math.ceil(best.type.length / 3)) ? best.type : undefined;
}
