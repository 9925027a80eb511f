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

/** The members of an object of type `T`, each its value or a JSON text of it. */
export type JsonMembers<T> = { [K in keyof T]: T[K] | JsonText<T[K]> };

/** An object written as one JSON text, its members in the given order, texts taken as they are. */
export function jsonObject<T>(members: JsonMembers<T>): JsonText<T> {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(members as object)) {
    const text = value instanceof JsonText ? value.text : JSON.stringify(value);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return new JsonText<T>(`{${parts.join(',')}}`);
}

/**
 * The SQL of a JSON array of the rows of `source` (a subquery aliased `r`), in `order` (terms on `r`),
 * `[]` when there are none; each element is `element` (an expression on `r` giving JSON text: by default
 * the row's `row_to_json`, or a record the row keeps, migrations 0018 and 0019). All three are SQL, so
 * only constant text belongs in them. `ARRAY(… ORDER BY …)` rather than an ordered aggregate: the order is
 * then the subquery's, which an index can give, where an ordered aggregate sorts every row's JSON text
 * before PostgreSQL 16. Joined with `,` rather than by `json_agg`, whose separators add spaces, so that
 * the text is what `JSON.stringify` writes for the same records, byte for byte, but for a double below
 * 1e-4 (PostgreSQL writes `1e-05`: the same number).
 */
export function jsonArraySql(source: string, order: string, element = 'row_to_json(r)::text'): string {
  return `('[' || array_to_string(ARRAY(SELECT ${element} FROM (${source}) r ORDER BY ${order}), ',') || ']')`;
}
