import type { BodyOf, ResponseOf } from '@svc-kit/contract';
import type { Client } from '../client.js';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';

/** An identity's integrations (upstream tool servers), addressed by the identity's `slug` and `name`. */
export class Integrations {
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
  }

  /** listIntegrations: the upstreams connected to the identity. */
  list(slug: string, options?: RequestOptions): APIPromise<ResponseOf<'listIntegrations'>> {
    return this.#client.request('listIntegrations', { params: { slug } }, options);
  }

  /** createIntegration: connects a catalogue entry or an upstream by address. */
  create(
    slug: string,
    body: BodyOf<'createIntegration'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'createIntegration'>> {
    return this.#client.request('createIntegration', { params: { slug }, body }, options);
  }

  /** authorizeIntegration: starts the upstream OAuth ceremony; answers where to send the owner. */
  authorize(
    slug: string,
    name: string,
    body?: BodyOf<'authorizeIntegration'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'authorizeIntegration'>> {
    return this.#client.request(
      'authorizeIntegration',
      { params: { slug, name }, ...(body && { body }) },
      options,
    );
  }

  /** getExposure: which of the integration's tools contacts may reach. */
  getExposure(slug: string, name: string, options?: RequestOptions): APIPromise<ResponseOf<'getExposure'>> {
    return this.#client.request('getExposure', { params: { slug, name } }, options);
  }

  /** setExposure: replaces which tools contacts may reach. */
  setExposure(
    slug: string,
    name: string,
    body: BodyOf<'setExposure'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'setExposure'>> {
    return this.#client.request('setExposure', { params: { slug, name }, body }, options);
  }

  /** deleteIntegration: disconnects the upstream and forgets its credential (resolves to `null`). */
  delete(slug: string, name: string, options?: RequestOptions): APIPromise<ResponseOf<'deleteIntegration'>> {
    return this.#client.request('deleteIntegration', { params: { slug, name } }, options);
  }
}
