import { callService, type ServiceTarget } from './service-api';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The receiver a URL names, loopback spellings counted as one host: scheme, host, port and path. */
function receiverOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const host = LOOPBACK.has(parsed.hostname) ? 'loopback' : parsed.hostname;
    return `${parsed.protocol}//${host}:${parsed.port}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/**
 * Active endpoints of the workspace, other than this listener, that the service dials at the URL `listen`
 * forwards to. Each signs with its own secret, so the app refuses one of every two deliveries: the usual
 * case is the quickstart's endpoint, still registered when the developer moves on to `listen`. A failed
 * look-up says nothing: this is advice, not a condition of listening.
 */
export async function endpointsAtSameUrl(
  target: ServiceTarget,
  forwardTo: string,
  listenerId: string,
): Promise<string[]> {
  const wanted = receiverOf(forwardTo);
  try {
    const response = await callService(target, 'GET', '/v1/workspace/webhooks', {
      signal: AbortSignal.timeout(5_000),
    });
    const { endpoints } = (await response.json()) as {
      endpoints: { id: string; url: string; status: string }[];
    };
    return endpoints
      .filter((e) => e.id !== listenerId && e.status === 'active' && receiverOf(e.url) === wanted)
      .map((e) => e.id);
  } catch {
    return [];
  }
}
