/** "cached plan must not change result type" */
export const STALE_PREPARED_STATEMENT = '0A000';
/** How many distinct statements the session keeps prepared; any beyond are parsed each time. */
const MAX_PREPARED = 500;

/**
 * The statements prepared on the single session, by text: each is parsed and planned once, then only bound
 * and run (for a short statement, parsing and planning cost the thread about as much as running it).
 * Statements run in the order sent, so a name is usable by the statement sent right after its Parse; a Parse
 * that failed (a syntax error, an aborted transaction) made no name, and the text is parsed again next time.
 */
export class PreparedStatements {
  #names = new Map<string, { name: string; ready: boolean } | null>();
  #count = 0;

  for(sql: string): { name: string; parse: boolean } | undefined {
    const known = this.#names.get(sql);
    if (known === null) return undefined;
    // Sent but not yet known to have parsed: send unnamed meanwhile rather than depend on it.
    if (known !== undefined) return known.ready ? { name: known.name, parse: false } : undefined;
    if (this.#names.size >= MAX_PREPARED) return undefined;
    const name = `svc_${this.#count++}`;
    this.#names.set(sql, { name, ready: false });
    return { name, parse: true };
  }

  settle(sql: string, parsed: boolean): void {
    const known = this.#names.get(sql);
    if (!known) return;
    if (parsed) known.ready = true;
    else this.#names.delete(sql);
  }

  forget(sql: string): void {
    this.#names.set(sql, null);
  }
}
