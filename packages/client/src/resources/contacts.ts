import type { BodyOf, QueryOf, ResponseOf } from '@svc-kit/contract';
import type { Client } from '../client.js';
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';

/** An identity's contacts, addressed by the identity's `slug` and the contact's `fingerprint`. */
export class Contacts {
  readonly #client: Client;

  constructor(client: Client) {
    this.#client = client;
  }

  /** listContacts: all contacts, or only those in one `status`. */
  list(
    slug: string,
    query?: QueryOf<'listContacts'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'listContacts'>> {
    return this.#client.request('listContacts', { params: { slug }, ...(query && { query }) }, options);
  }

  /** requestContact: asks the holder of a contact card to become a contact. */
  request(
    slug: string,
    body: BodyOf<'requestContact'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'requestContact'>> {
    return this.#client.request('requestContact', { params: { slug }, body }, options);
  }

  /** updateContact: changes the preset or the individual permissions. */
  update(
    slug: string,
    fingerprint: string,
    body: BodyOf<'updateContact'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'updateContact'>> {
    return this.#client.request('updateContact', { params: { slug, fingerprint }, body }, options);
  }

  /** removeContact: removes the contact on both sides. */
  remove(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'removeContact'>> {
    return this.#client.request('removeContact', { params: { slug, fingerprint } }, options);
  }

  /** approveContact (idempotent): accepts a request with a preset, `basic` when left out. */
  approve(
    slug: string,
    fingerprint: string,
    body?: BodyOf<'approveContact'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'approveContact'>> {
    return this.#client.request(
      'approveContact',
      { params: { slug, fingerprint }, ...(body && { body }) },
      options,
    );
  }

  /** rejectContact (idempotent): declines a request. */
  reject(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'rejectContact'>> {
    return this.#client.request('rejectContact', { params: { slug, fingerprint } }, options);
  }

  /** notifyAcceptance (idempotent): sends the acceptance of an active contact again. */
  notifyAcceptance(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'notifyAcceptance'>> {
    return this.#client.request('notifyAcceptance', { params: { slug, fingerprint } }, options);
  }

  /** listContactTools: the tools the contact offers. */
  listTools(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'listContactTools'>> {
    return this.#client.request('listContactTools', { params: { slug, fingerprint } }, options);
  }

  /** callContactTool: calls one of the contact's tools. Not retried after an unknown outcome. */
  callTool(
    slug: string,
    fingerprint: string,
    body: BodyOf<'callContactTool'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'callContactTool'>> {
    return this.#client.request('callContactTool', { params: { slug, fingerprint }, body }, options);
  }

  /** blockContact (idempotent): blocks the contact silently. */
  block(slug: string, fingerprint: string, options?: RequestOptions): APIPromise<ResponseOf<'blockContact'>> {
    return this.#client.request('blockContact', { params: { slug, fingerprint } }, options);
  }

  /** unblockContact: lifts a block. */
  unblock(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'unblockContact'>> {
    return this.#client.request('unblockContact', { params: { slug, fingerprint } }, options);
  }

  /** setPetname: the owner's private name for the contact (resolves to `null`). */
  setPetname(
    slug: string,
    fingerprint: string,
    body: BodyOf<'setPetname'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'setPetname'>> {
    return this.#client.request('setPetname', { params: { slug, fingerprint }, body }, options);
  }

  /** refreshContact: fetches the contact's signed card again now. */
  refresh(
    slug: string,
    fingerprint: string,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'refreshContact'>> {
    return this.#client.request('refreshContact', { params: { slug, fingerprint }, body: {} }, options);
  }

  /** setTrust: whether the contact may only message or may also instruct (resolves to `null`). */
  setTrust(
    slug: string,
    fingerprint: string,
    body: BodyOf<'setTrust'>,
    options?: RequestOptions,
  ): APIPromise<ResponseOf<'setTrust'>> {
    return this.#client.request('setTrust', { params: { slug, fingerprint }, body }, options);
  }
}
