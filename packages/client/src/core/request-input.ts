import type { BodyOf, OperationId, PathParamsOf, QueryOf } from '@svc-kit/contract';
import type { RequestOptions } from './options.js';

/** A part the operation does not take must be left out; a part with only optional fields may be. */
type Part<Name extends string, Value> = [Value] extends [undefined]
  ? { [K in Name]?: never }
  : // biome-ignore lint/complexity/noBannedTypes: `{}` is exactly "an object with no required field" here.
    {} extends Value
    ? { [K in Name]?: Value }
    : { [K in Name]: Value };

type Flatten<T> = { [K in keyof T]: T[K] };

/** The arguments of `client.request(operationId, input)`, typed from the contract. */
export type RequestInput<Id extends OperationId> = Flatten<
  Part<'params', PathParamsOf<Id>> & Part<'query', QueryOf<Id>> & Part<'body', BodyOf<Id>>
>;

/** `input` may be left out when nothing in it is required. */
export type RequestArgs<Id extends OperationId> =
  // biome-ignore lint/complexity/noBannedTypes: see above.
  {} extends RequestInput<Id>
    ? [input?: RequestInput<Id>, options?: RequestOptions]
    : [input: RequestInput<Id>, options?: RequestOptions];
