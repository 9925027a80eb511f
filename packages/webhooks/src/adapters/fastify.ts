import { WebhookVerificationError } from '@svc-kit/webhooks';
import type { FastifyPluginAsync } from 'fastify';
import { type BodyLimitOptions, resolveMaxBodyBytes } from './body-limit';
import type { WebhookReceiver } from './receiver';
import { bodyTooLarge } from './refusal';

export interface FastifyWebhookOptions extends BodyLimitOptions {
  /** The `Webhooks` instance whose `handle()` answers each delivery. */
  readonly webhooks: WebhookReceiver;
  /** Path of the POST route, below the `prefix` the plugin is registered with. Default `/webhooks`. */
  readonly path?: string;
}

const EMPTY_BODY = new Uint8Array(0);

/**
 * A Fastify (5) plugin that adds one POST route receiving deliveries. Register it without `fastify-plugin`:
 * its raw-body parser then lives in the plugin's own encapsulated context, so the rest of the app keeps
 * its JSON parser.
 *
 * `await app.register(webhookPlugin, { webhooks, path: '/webhooks' })`
 */
export const webhookPlugin: FastifyPluginAsync<FastifyWebhookOptions> = async (fastify, options) => {
  if (typeof options.webhooks?.handle !== 'function') {
    throw new WebhookVerificationError(
      'invalid_options',
      'webhookPlugin needs { webhooks }: the Webhooks instance that verifies and routes deliveries.',
    );
  }
  const { webhooks, path = '/webhooks' } = options;
  const maxBodyBytes = resolveMaxBodyBytes(options);

  // Scoped to this plugin's context: every content type (and none) arrives as the exact bytes received.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: maxBodyBytes },
    (_request, body, done) => {
      done(null, body);
    },
  );

  // Fastify stops reading at the limit and raises FST_ERR_CTP_BODY_TOO_LARGE; answer it like the other adapters.
  fastify.setErrorHandler((error, _request, reply) => {
    if ((error as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const response = bodyTooLarge(maxBodyBytes);
      return reply.code(response.status).headers(response.headers).send(response.body);
    }
    return reply.send(error);
  });

  fastify.post(path, { bodyLimit: maxBodyBytes }, async (request, reply) => {
    const body = request.body instanceof Uint8Array ? request.body : EMPTY_BODY;
    const response = await webhooks.handle({ body, headers: request.headers, method: request.method });
    return reply.code(response.status).headers(response.headers).send(response.body);
  });
};

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
