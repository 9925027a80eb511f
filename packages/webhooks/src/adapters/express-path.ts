import type { IncomingMessage } from 'node:http';

/** The two Express settings that decide how a route path matches (both off by default, as in Express). */
interface RoutingSettings {
  strict: boolean;
  caseSensitive: boolean;
}

interface ExpressRequest {
  /** The path as Express sees it, relative to the mount point. */
  path?: unknown;
  app?: { get?: (setting: string) => unknown };
}

function settingsOf(req: IncomingMessage): RoutingSettings {
  const app = (req as ExpressRequest).app;
  const read = (name: string) => {
    try {
      return typeof app?.get === 'function' && app.get(name) === true;
    } catch {
      return false;
    }
  };
  return { strict: read('strict routing'), caseSensitive: read('case sensitive routing') };
}

function requestPath(req: IncomingMessage): string | undefined {
  const expressPath = (req as ExpressRequest).path;
  if (typeof expressPath === 'string') return expressPath;
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function normalize(path: string, settings: RoutingSettings): string {
  // Without strict routing, Express lets one trailing slash through (`/webhooks/` reaches `/webhooks`).
  const trimmed = !settings.strict && path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return settings.caseSensitive ? trimmed : trimmed.toLowerCase();
}

/**
 * Whether `req` is for `path`, by the rules `app.post(path, …)` would apply in the same app: one optional
 * trailing slash unless `strict routing` is on, any case unless `case sensitive routing` is on. On a bare
 * `node:http` server, Express's defaults apply.
 */
export function matchesRoutePath(req: IncomingMessage, path: string): boolean {
  const actual = requestPath(req);
  if (actual === undefined) return false;
  const settings = settingsOf(req);
  return normalize(actual, settings) === normalize(path, settings);
}
