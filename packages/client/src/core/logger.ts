import { readEnvironment } from './environment.js';

/** How much the client reports, from nothing to every request. */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Where the client's log lines go. `console` fits, and so do pino, winston and most loggers. */
export interface Logger {
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  debug(message: string, ...details: unknown[]): void;
}

/** The log as the client uses it: one method per level, silent below the configured one. */
export type ClientLog = Record<Exclude<LogLevel, 'off'>, (message: string, details?: unknown) => void>;

export const LOG_ENV = 'SVC_LOG';
const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };
const LEVELS = Object.keys(RANK) as LogLevel[];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** The level asked for, else `SVC_LOG` from the environment when it names a level, else `warn`. */
export function resolveLogLevel(option: LogLevel | undefined): LogLevel {
  if (option !== undefined) return option;
  const fromEnvironment = readEnvironment(LOG_ENV)?.trim().toLowerCase();
  return isLogLevel(fromEnvironment) ? fromEnvironment : 'warn';
}

export function isLogger(value: unknown): value is Logger {
  return (
    typeof value === 'object' &&
    value !== null &&
    LEVELS.every(
      (level) => level === 'off' || typeof (value as Record<string, unknown>)[level] === 'function',
    )
  );
}

/**
 * Every line passes through `redact` (the API key never reaches a log) and is prefixed with the client's
 * name; a logger that throws cannot break a call.
 */
export function createLog(level: LogLevel, logger: Logger, redact: (text: string) => string): ClientLog {
  const at =
    (name: Exclude<LogLevel, 'off'>) =>
    (message: string, details?: unknown): void => {
      if (RANK[name] > RANK[level]) return;
      try {
        const line = redact(`[svc-kit/client] ${message}`);
        if (details === undefined) logger[name](line);
        else logger[name](line, JSON.parse(redact(JSON.stringify(details))));
      } catch {
        // Logging is advisory: a failing logger must not change the outcome of a call.
      }
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
