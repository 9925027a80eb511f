/**
 * The part of a zod schema the mock uses. Typing against this shape (instead of importing zod) keeps zod
 * out of the mock's public types: the schemas all come from `@svc-kit/contract`.
 */
export interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export type ParseResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: { readonly issues: readonly Issue[] } };

export interface Schema<T = unknown> {
  safeParse(value: unknown): ParseResult<T>;
}

/** The output type of a contract schema, `undefined` where the operation has none (`null`). */
export type OutputOf<S> = S extends { _zod: { output: infer O } } ? O : undefined;

/** One plain-text form of validation problems, the service's too: the contract's. */
export { describeIssues } from '@svc-kit/contract';
