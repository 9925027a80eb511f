import type { FastifyBaseLogger } from 'fastify';
import type { Relay } from '../../relay/relay.js';
import type { SseListenerStream } from '../../relay/sse-stream.js';
import type { CredentialWatch, StreamCredentials } from './credential-watch.js';

/**
 * Makes `stream` its listener's one stream and keeps checking it until it ends: on every announced change
 * of the credentials it was opened with, and every `relay.streamCheckMs` in any case.
 *
 * A check waits for the hold: until then the database names the listener's previous stream (or none), and
 * a check would end this one as replaced. A check can outlive its stream (the database closing under it at
 * shutdown): logged, never thrown.
 */
export async function holdAndSupervise(options: {
  relay: Relay;
  credentialWatch: CredentialWatch;
  endpointId: string;
  stream: SseListenerStream;
  credentials: StreamCredentials;
  check: () => Promise<void>;
  log: FastifyBaseLogger;
}): Promise<void> {
  const { relay, endpointId, stream, check, log } = options;
  let held: Promise<void> = Promise.resolve();
  // Announcements arriving before the hold is written make one check between them, run after it.
  let queued = false;
  const recheck = () => {
    if (stream.ended || queued) return;
    queued = true;
    held
      .then(() => {
        queued = false;
        return stream.ended ? undefined : check();
      })
      .catch((error: unknown) =>
        log.warn({ err: error, endpoint_id: endpointId }, 'checking a listen stream failed'),
      );
  };
  const timer = setInterval(recheck, relay.streamCheckMs);
  const unwatch = options.credentialWatch.watch(options.credentials, recheck);
  stream.onEnd(() => {
    clearInterval(timer);
    unwatch();
    void relay.release(endpointId, stream);
  });
  // The client may already be gone (it hung up while the stream was set up): nothing to hold then.
  if (stream.ended) return;
  const holding = relay.hold(endpointId, stream).then(
    () => true,
    (error: unknown) => {
      log.warn({ err: error, endpoint_id: endpointId }, 'holding a listen stream failed');
      return false;
    },
  );
  held = holding.then(() => undefined);
  // Not held, so never checked: the CLI is told to come back rather than left on a stream nobody serves.
  if (!(await holding)) stream.end('unavailable');
}
