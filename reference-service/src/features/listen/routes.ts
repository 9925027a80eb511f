import { excerptOf, ID_PREFIXES, newWebhookEndpoint } from '@svc-kit/contract';
import { EVENT_TYPES } from '@svc-kit/webhooks';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { parse } from '../../http/parse.js';
import { authorize, type Requirements } from '../../http/policy.js';
import type { PostOutcome } from '../../outbound/guarded-client.js';
import type { Relay } from '../../relay/relay.js';
import { SseListenerStream, streamIdOf } from '../../relay/sse-stream.js';
import type { RelayFailure, StreamEnd } from '../../relay/types.js';
import {
  countListenersLocked,
  getListener,
  getRelayedDelivery,
  LISTENER_URL,
  type ListenerRow,
  touchListeners,
} from '../../store/queries/listeners.js';
import { insertEndpoint, newEndpointRow, removeEndpoint } from '../../store/queries/webhook-endpoints.js';
import { type ListenerSecrets, listenerSecrets, sealedFor } from '../webhooks/secrets.js';
import { spendEndpointCreation } from '../webhooks/service.js';
import { CredentialWatch } from './credential-watch.js';
import { holdAndSupervise } from './stream-supervision.js';

const ADMIN: Requirements = { permission: 'service:workspace:admin', stepUp: false, suspended: true };
/**
 * Handing out the signing secret or opening (or taking over) a listener: a session of a member with MFA
 * must be stepped up, as for rotating an endpoint's secret ("Step-up for account changes" on the
 * open-choices page). A stream already open is not ended when its step-up lapses: it hands out nothing new.
 */
const ADMIN_STEPPED_UP: Requirements = { ...ADMIN, stepUpIfEnrolled: 'the relay’s secret or a listener' };

/** Why a stream whose credential no longer authorizes ends: the workspace's state, else its key's. */
const ENDED_BY: Partial<Record<string, StreamEnd>> = {
  workspace_suspended: 'suspended',
  workspace_deletion_hold: 'deletion_hold',
};

/** Live listeners a workspace may have at once: each is an endpoint with a stream and a log. */
export const MAX_LISTENERS = 10;

const listenQuery = z.strictObject({
  events: z
    .string()
    .max(2_000)
    .optional()
    .transform((value) => (value ? value.split(',').map((name) => name.trim()) : []))
    .pipe(z.array(z.enum(EVENT_TYPES as unknown as [string, ...string[]])).max(EVENT_TYPES.length)),
  listener: z.string().max(64).min(1).optional(),
});
const listenerPath = z.strictObject({ id: z.string().max(64).min(1) });

/** The local outcomes the CLI may report, mapped to the service's own words and the delivery log's code. */
const LOCAL_FAILURES = {
  refused: { reason: 'the local app refused the connection', code: 'refused' },
  timeout: { reason: 'the local app did not answer within 10 seconds', code: 'timeout' },
  unreachable: { reason: 'the local address could not be reached', code: 'unreachable' },
  invalid_response: { reason: 'the local app sent an answer that is not HTTP', code: 'invalid_response' },
} as const satisfies Record<string, RelayFailure>;

const answerBody = z.strictObject({
  /** The token the stream's `ready` gave: only the CLI holding the stream reports for it. */
  stream_token: z.string().max(64).min(1),
  delivery_id: z.string().max(64).min(1),
  status: z.number().int().min(100).max(599).nullable(),
  latency_ms: z.number().min(0).max(3_600_000).nullable(),
  excerpt: z.string().max(4_096).nullable(),
  failure: z.enum(Object.keys(LOCAL_FAILURES) as [keyof typeof LOCAL_FAILURES]).nullable(),
});

function outcomeOf(answer: z.output<typeof answerBody>): PostOutcome {
  const latencyMs = answer.latency_ms ?? 0;
  if (answer.failure !== null) return { kind: 'failed', ...LOCAL_FAILURES[answer.failure], latencyMs };
  if (answer.status === null) {
    throw new ServiceError('invalid_request', 'an answer needs either a status or a failure');
  }
  return {
    kind: 'answered',
    status: answer.status,
    latencyMs,
    excerpt: excerptOf(Buffer.from(answer.excerpt ?? '', 'utf8')),
    // The local app's headers stay on the developer's machine; nothing here reads them.
    headers: {},
  };
}

/**
 * Creates a listener endpoint, within the workspace's cap, signing with the workspace's listener secrets as
 * they are once its row is locked (a rotation locks it too); answers them for `ready`.
 */
async function openListener(
  ctx: ServiceContext,
  workspaceId: string,
  events: string[],
  now: number,
): Promise<{ listener: ListenerRow; secrets: ListenerSecrets }> {
  const id = newId(ID_PREFIXES.webhookEndpoint);
  return ctx.db.transaction(async (tx) => {
    if ((await countListenersLocked(tx, workspaceId)) >= MAX_LISTENERS) {
      throw new ServiceError(
        'forbidden',
        `a workspace may have ${MAX_LISTENERS} listeners at once; stop one (Ctrl-C) or wait for an abandoned one to be removed`,
      );
    }
    const secrets = await listenerSecrets(ctx.secretBox, tx, workspaceId, now);
    const record = newWebhookEndpoint({ id, url: LISTENER_URL, events }, now);
    const listener: ListenerRow = {
      ...newEndpointRow(workspaceId, record, null),
      ...sealedFor(ctx.secretBox, id, secrets),
      listener_stream: null,
    };
    await spendEndpointCreation(tx, workspaceId, now);
    await insertEndpoint(tx, listener);
    await touchListeners(tx, [id], now);
    return { listener, secrets };
  });
}

/**
 * The relay behind `svc-webhooks listen` (outside /v1: not part of the contract). A key or session with
 * `service:workspace:admin` opens a stream; while it is open the workspace has a listener endpoint that
 * receives deliveries like any endpoint, relayed over the stream; the CLI posts back the local answer.
 */
export function registerRelayRoutes(app: FastifyInstance, ctx: ServiceContext, relay: Relay): void {
  const credentialWatch = new CredentialWatch(ctx.db);
  app.addHook('onClose', () => credentialWatch.stop());

  app.get('/relay/v1/secret', async (request) => {
    const { workspace } = await authorize(ctx, request, ADMIN_STEPPED_UP);
    return { secret: (await listenerSecrets(ctx.secretBox, ctx.db, workspace.id, ctx.now())).secret };
  });

  app.get('/relay/v1/listen', async (request, reply) => {
    const { principal, workspace } = await authorize(ctx, request, ADMIN_STEPPED_UP);
    const query = parse(listenQuery, request.query, 'query');
    const now = ctx.now();
    const resumed = query.listener !== undefined;
    const { listener, secrets } = resumed
      ? {
          listener: await getListener(ctx.db, workspace.id, query.listener!),
          secrets: await listenerSecrets(ctx.secretBox, ctx.db, workspace.id, now),
        }
      : await openListener(ctx, workspace.id, query.events, now);
    if (listener === undefined) {
      throw new ServiceError('not_found', 'no such listener: it was closed or removed; start a new one');
    }
    if (!resumed) request.log.info({ endpoint_id: listener.id }, 'listener opened');
    const endpointId = listener.id;

    reply.hijack();
    const stream = new SseListenerStream(reply.raw);
    stream.open(request.id);
    stream.event('ready', {
      listener_id: endpointId,
      stream_token: stream.token,
      secret: secrets.secret,
      // During a rotation's overlap the previous secret signs too (second), until then.
      previous_secret_until: secrets.previous?.until ?? null,
      events: listener.events,
      status: listener.status,
      resumed,
      server_time: now,
      webhooks_enabled: workspace.webhooks_enabled,
    });
    await holdAndSupervise({
      relay,
      credentialWatch,
      endpointId,
      stream,
      credentials: {
        keyId: principal.kind === 'key' ? principal.keyId : undefined,
        memberId: principal.memberId,
        workspaceId: principal.workspaceId,
      },
      check: checkStream,
      log: request.log,
    });

    /** Heartbeat, then: is the key still good, the listener still there and still this stream's? */
    async function checkStream(): Promise<void> {
      stream.heartbeat();
      try {
        // The stream's own request was counted once: its checks spend nothing of the workspace's budget.
        await authorize(ctx, request, { ...ADMIN, counted: false });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        // The CLI cannot close its listener without a key: the service does it for it.
        await removeEndpoint(ctx.db, workspace.id, endpointId, ctx.now());
        stream.end(ENDED_BY[error.code] ?? 'revoked');
        return;
      }
      const current = await getListener(ctx.db, workspace.id, endpointId);
      if (current === undefined) stream.end('removed');
      else if (current.listener_stream !== stream.id) stream.end('replaced');
      else await touchListeners(ctx.db, [endpointId], ctx.now());
    }
  });

  app.post('/relay/v1/listeners/:id/answers', async (request, reply) => {
    const { workspace } = await authorize(ctx, request, ADMIN);
    const { id } = parse(listenerPath, request.params, 'path parameters');
    const answer = parse(answerBody, request.body, 'body');
    if ((await getListener(ctx.db, workspace.id, id)) === undefined) {
      throw new ServiceError('not_found', 'no such listener');
    }
    const streamId = streamIdOf(answer.stream_token);
    if ((await getRelayedDelivery(ctx.db, id, streamId, answer.delivery_id)) === undefined) {
      throw new ServiceError('not_found', 'no delivery of this listener is waiting for that answer');
    }
    await relay.answer(answer.delivery_id, outcomeOf(answer));
    return reply.code(204).send();
  });

  app.delete('/relay/v1/listeners/:id', async (request, reply) => {
    const { workspace } = await authorize(ctx, request, ADMIN);
    const { id } = parse(listenerPath, request.params, 'path parameters');
    if ((await getListener(ctx.db, workspace.id, id)) === undefined) {
      throw new ServiceError('not_found', 'no such listener');
    }
    await removeEndpoint(ctx.db, workspace.id, id, ctx.now());
    await relay.end(id, 'removed');
    request.log.info({ endpoint_id: id }, 'listener closed');
    return reply.code(204).send();
  });
}
