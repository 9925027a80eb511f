/**
 * Deepest JSON from outside (a request body, a peer's answer) the service reads: its own bodies are a few
 * levels deep, and recursion over a 5,000-level value (validation, fingerprinting) would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Most array items and object members a /v1 body may hold (counted as its commas and opening brackets,
 * an upper bound). `JSON.parse` of a mebibyte of `{}` or of single-letter keys blocked the main thread for
 * about 100 ms, before any credential was looked at: a stranger's few connections starved every tenant.
 * A /v1 body never needs more than a peer body (64 KiB) can carry, and 32,768 is that many one-digit items.
 */
export const MAX_JSON_ITEMS = 32_768;

/** Whether JSON text nests arrays and objects deeper than `max` (one linear pass, strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  return jsonShapeProblem(text, max, Number.POSITIVE_INFINITY) === 'depth';
}

/**
 * One linear pass over JSON text, strings skipped: `depth` when it nests deeper than `maxDepth`, `items`
 * when it holds more than `maxItems` commas and opening brackets, else undefined.
 */
export function jsonShapeProblem(
  text: string,
  maxDepth: number,
  maxItems: number,
): 'depth' | 'items' | undefined {
  let depth = 0;
  let items = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > maxDepth) return 'depth';
      if (++items > maxItems) return 'items';
    } else if (char === 0x5d || char === 0x7d) depth--;
    else if (char === 0x2c && ++items > maxItems) return 'items';
  }
  return undefined;
}
