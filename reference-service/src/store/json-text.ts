/**
 * A JSON text written by the database (`row_to_json`), typed with the value it encodes. Lists are answered
 * as the database wrote them: decoding 100 rows into objects and encoding those as JSON again was half the
 * service's CPU for such a call (bench/RESULTS.md, fourteenth sitting). Wherever such a text
 * is stringified as a value (an idempotency record, a log), `toJSON` gives the value itself.
 */
export class JsonText<T> {
  /** The type of the value the text encodes; there is no such member at run time. */
  declare readonly encodes?: T;

  constructor(readonly text: string) {}

  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}

/** An object written as one JSON text, its members in the given order, texts taken as they are. */
export function jsonObject<T extends object>(
  members: { [K in keyof T]: T[K] | JsonText<T[K]> },
): JsonText<T> {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(members)) {
    const text = value instanceof JsonText ? value.text : JSON.stringify(value);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return new JsonText<T>(`{${parts.join(',')}}`);
}

/**
 * The SQL of a JSON array of the rows of `source` (a subquery aliased `r`), in `order` (terms on `r`):
 * `[]` when there are none. `string_agg` rather than `json_agg`, whose separators add spaces: this way
 * the text is what `JSON.stringify` writes for the same records, byte for byte, but for a double below
 * 1e-4 or at -0 (PostgreSQL writes `1e-05` and `-0`: the same numbers).
 */
export function jsonArraySql(source: string, order: string): string {
  return `(SELECT '[' || coalesce(string_agg(row_to_json(r)::text, ',' ORDER BY ${order}), '') || ']' FROM (${source}) r)`;
}
