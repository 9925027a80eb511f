import { isOperationId, type OperationId, operations, type ResponseOf } from '@svc-kit/contract';
import { APIPromise } from './core/api-promise.js';
import { type ClientConfig, resolveConfig } from './core/config.js';
import { execute } from './core/execute.js';
import type { ClientOptions, RequestOptions } from './core/options.js';
import type { RawInput } from './core/prepare.js';
import type { APIResult } from './core/read-answer.js';
import type { RequestArgs } from './core/request-input.js';
import { ClientValidationError } from './errors/validation-errors.js';
import { Contacts } from './resources/contacts.js';
import { Integrations } from './resources/integrations.js';
import { Webhooks } from './resources/webhooks.js';

/**
 * The typed client of the /v1 API. Every method follows one operation of `@svc-kit/contract`: its
 * method, path, arguments and answer come from the operation table.
 *
 * ```ts
 * const client = new Client({ apiKey: process.env.SVC_API_KEY, baseUrl: 'https://api.example.com' });
 * const { endpoints } = await client.webhooks.list();
 * ```
 */
export class Client {
  /** Workspace webhook endpoints and their delivery log. */
  readonly webhooks: Webhooks;
  /** An identity's contacts. */
  readonly contacts: Contacts;
  /** An identity's upstream tool servers. */
  readonly integrations: Integrations;
  /** The base URL every path is appended to (without a trailing slash). */
  readonly baseUrl: string;
  // Private, so that logging or serialising the client never shows the API key.
  readonly #config: ClientConfig;

  /** Throws `ClientValidationError` (target `options`) when an option is unusable. */
  constructor(options: ClientOptions) {
    this.#config = resolveConfig(options);
    this.baseUrl = this.#config.baseUrl;
    this.webhooks = new Webhooks(this);
    this.contacts = new Contacts(this);
    this.integrations = new Integrations(this);
  }

  /**
   * Calls any operation by its contract name.
   *
   * ```ts
   * await client.request('approveContact', { params: { slug, fingerprint }, body: { preset: 'close' } });
   * ```
   */
  request<Id extends OperationId>(operationId: Id, ...args: RequestArgs<Id>): APIPromise<ResponseOf<Id>> {
    const [input, options] = args as unknown as [RawInput?, RequestOptions?];
    return new APIPromise(this.#run(operationId, input, options) as Promise<APIResult<ResponseOf<Id>>>);
  }

  async #run(operationId: string, input: RawInput | undefined, options: RequestOptions | undefined) {
    if (typeof operationId !== 'string' || !isOperationId(operationId)) {
      throw new ClientValidationError({
        operationId: undefined,
        target: 'options',
        issues: [
          { code: 'unknown_operation', path: ['operationId'], message: 'not an operation of the contract' },
        ],
      });
    }
    if (input !== undefined && (typeof input !== 'object' || input === null)) {
      throw new ClientValidationError({
        operationId,
        target: 'options',
        issues: [{ code: 'invalid_type', path: [], message: 'expected { params, query, body }' }],
      });
    }
    return execute(this.#config, operations[operationId], input, options);
  }

  /** Keeps `console.log(client)` short and free of secrets. */
  toJSON(): { baseUrl: string; auth: 'apiKey' | 'session' } {
    return { baseUrl: this.baseUrl, auth: this.#config.auth.kind };
  }
}
