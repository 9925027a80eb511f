import type { BodyOf, QueryOf, ResponseOf } from '@svc-kit/contract';
import type { Client } from '../client.js';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';

/** How many deliveries `listDeliveries` asks for when no `limit` is given (the API requires one). */
export const DEFAULT_DELIVERIES_LIMIT = 20;

/** Workspace webhook endpoints (permission `service:workspace:admin`). */
export class Webhooks {
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
  }

  /** listWebhooks: the endpoints, the event names a filter may use, and whether delivery is on. */
  list(options?: RequestOptions): APIPromise<ResponseOf<'listWebhooks'>> {
    return this.#client.request('listWebhooks', {}, options);
  }

  /**
   * createWebhook: registers an endpoint; the answer holds its signing secret, shown this once. Needs
   * a step-up, so an API key is refused (`PermissionDeniedError`, code `step_up_required`).
   */
  create(body: BodyOf<'createWebhook'>, options?: RequestOptions): APIPromise<ResponseOf<'createWebhook'>> {
    return this.#client.request('createWebhook', { body }, options);
  }

  /** rotateWebhookSecret: a new signing secret; the previous one keeps verifying for 24 hours. */
  rotateSecret(id: string, options?: RequestOptions): APIPromise<ResponseOf<'rotateWebhookSecret'>> {
    return this.#client.request('rotateWebhookSecret', { params: { id } }, options);
  }

  /** setWebhookStatus: pause or resume an endpoint. */
  setStatus(
    id: string,
    body: BodyOf<'setWebhookStatus'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'setWebhookStatus'>> {
    return this.#client.request('setWebhookStatus', { params: { id }, body }, options);
  }

  /** deleteWebhook: removes an endpoint (204, resolves to `undefined`). */
  delete(id: string, options?: RequestOptions): APIPromise<ResponseOf<'deleteWebhook'>> {
    return this.#client.request('deleteWebhook', { params: { id } }, options);
  }

  /**
   * listWebhookDeliveries: an endpoint's delivery log, newest first. `limit` (1 to 100) defaults to
   * `DEFAULT_DELIVERIES_LIMIT` (20).
   */
  listDeliveries(
    id: string,
    query?: Partial<QueryOf<'listWebhookDeliveries'>>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'listWebhookDeliveries'>> {
    const limit = query?.limit ?? DEFAULT_DELIVERIES_LIMIT;
    return this.#client.request(
      'listWebhookDeliveries',
      { params: { id }, query: { ...query, limit } },
      options,
    );
  }
}
