import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { removeAbandonedListeners } from '../store/queries/listeners.js';
import type { RelaySettings } from './types.js';

/** Removes, every minute at most, the listeners whose stream has been gone longer than the setting. */
export function sweepAbandoned(db: Db, log: Logger, settings: RelaySettings): NodeJS.Timeout {
  const sweep = async () => {
    try {
      const now = settings.now();
      const removed = await removeAbandonedListeners(db, now - settings.abandonAfterMs, now);
      if (removed > 0) log.info({ removed }, 'listeners left without a stream were removed');
    } catch (error) {
      log.error({ err: error }, 'removing abandoned listeners failed');
    }
  };
  const timer = setInterval(() => void sweep(), Math.min(60_000, settings.abandonAfterMs));
  timer.unref();
  return timer;
}
