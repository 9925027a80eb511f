import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { PRUNABLE, pagesOf, prunePages } from '../store/queries/retention.js';

/** What the service keeps and how often it looks (config.ts reads the window, `SVC_RETENTION_DAYS`). */
export interface RetentionSettings {
  /** How long events and delivery records are kept, the log of a removed endpoint included. */
  keepMs: number;
  /** Time between the end of one pass and the start of the next. */
  everyMs: number;
  /** Pages each statement reads: the bound on how long one statement holds the database. */
  pagesPerStatement: number;
}

export const RETENTION_DAYS_DEFAULT = 30;

/** Tables whose rows are rewritten in place, vacuumed by every pass on PGlite (it has no autovacuum). */
const REWRITTEN_IN_PLACE = ['webhook_deliveries', 'integrations'];

export const DEFAULT_RETENTION: RetentionSettings = {
  keepMs: RETENTION_DAYS_DEFAULT * 24 * 60 * 60 * 1000,
  everyMs: 10 * 60 * 1000,
  pagesPerStatement: 64,
};

/**
 * Removes what the service no longer keeps (store/queries/retention.ts), on every instance, a few pages per
 * statement so that delivery goes on between them; rows in use are skipped, and instances passing at once
 * share the work harmlessly. Tables a pass removed rows from are vacuumed after it, so their space is reused
 * rather than the files growing (autovacuum comes later; PGlite has none).
 */
export function startRetention(
  db: Db,
  options: { now: () => number; settings: RetentionSettings; log: Logger },
) {
  const { now, settings, log } = options;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<Record<string, number>> | undefined;

  async function pass(): Promise<Record<string, number>> {
    const removed: Record<string, number> = {};
    for (const kind of PRUNABLE) {
      const cutoff = kind.cutoff(now(), settings.keepMs);
      const pages = await pagesOf(db, kind.table);
      let count = 0;
      for (let from = 0; from < pages && !closed; from += settings.pagesPerStatement) {
        count += await prunePages(db, kind, from, from + settings.pagesPerStatement, cutoff);
        // The next statement waits a turn: whatever else the service sends goes first.
        await nextTurn();
      }
      if (count > 0) removed[kind.table] = count;
    }
    // PGlite's delivery log and integrations are vacuumed every pass: their rows are rewritten in place
    // (a delivery's state; a catalog or an exposure of up to 1 MiB with every exchange or edit), and
    // nothing else would ever make that space usable again. A table another instance is vacuuming is skipped.
    const vacuumed =
      db.kind === 'pglite' ? [...REWRITTEN_IN_PLACE, ...Object.keys(removed)] : Object.keys(removed);
    for (const table of new Set(vacuumed)) {
      if (!closed) await db.exec(`VACUUM (SKIP_LOCKED) ${table}`);
    }
    if (Object.keys(removed).length > 0) log.info({ removed }, 'retention removed old rows');
    return removed;
  }

  /** One whole pass now (tests and the benchmark); resolves with the rows removed per table. */
  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) =>
          log.warn({ err: error }, 'a retention pass failed; the next one tries again'),
        )
        .finally(schedule);
    }, settings.everyMs);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
