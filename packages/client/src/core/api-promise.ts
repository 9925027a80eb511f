import type { APIResult } from './read-answer.js';

/** The answer of a call together with the raw `Response` it came from. */
export interface WithResponse<T> {
  data: T;
  /** The raw answer (status, headers). Its body has already been read. */
  response: Response;
  /** The service's request id (`x-request-id`), when it sent one. */
  requestId: string | undefined;
}

/**
 * What every method returns: a promise of the parsed answer that can also give the raw response. The
 * request starts at once, like any promise; awaiting it yields `data`, `.withResponse()` yields
 * `{ data, response, requestId }`. Both read the same single request.
 */
export class APIPromise<T> extends Promise<T> {
  readonly #result: Promise<APIResult<T>>;
  #data: Promise<T> | undefined;

  constructor(result: Promise<APIResult<T>>) {
    // The base promise is never observed: `then`, `catch` and `finally` below delegate to `#result`.
    super((resolve) => resolve(undefined as T));
    this.#result = result;
  }

  // Derived promises (from `then`, `Promise.all`, ...) are plain promises.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The parsed answer with the raw `Response` and the request id. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result.then(({ data, response, requestId }) => ({ data, response, requestId }));
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#result.then((result) => result.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: this class is a promise; `then` is what makes it one.
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#parsed().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }
}
