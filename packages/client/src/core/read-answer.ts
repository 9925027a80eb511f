import type { Operation } from '@svc-kit/contract';
import { ResponseValidationError } from '../errors/validation-errors.js';
import type { Answer } from './send-attempt.js';

export interface APIResult<T> {
  data: T;
  /** The raw answer. Its body has already been read. */
  response: Response;
  /** The service's `x-request-id` header, when present. */
  requestId: string | undefined;
}

/**
 * Turns a 2xx answer into the operation's value: `undefined` for an operation without an answer body
 * (204), `null` for an empty or `null` body where the contract answers `null`, otherwise the JSON,
 * checked against the success schema when `validate` is on.
 */
export function readAnswer(op: Operation, answer: Answer, validate: boolean): APIResult<unknown> {
  const { response, text } = answer;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const schema = op.success.schema;
  if (schema === null) return { data: undefined, response, requestId };
  const fail = (problem: string, body: unknown, issues: ResponseValidationError['issues'] = []) =>
    new ResponseValidationError({
      operationId: op.operationId,
      status: response.status,
      requestId,
      problem,
      issues,
      body,
    });
  let json: unknown;
  if (text.trim() === '') {
    if (!schema.safeParse(null).success) throw fail('the body is empty', undefined);
    json = null;
  } else {
    try {
      json = JSON.parse(text);
    } catch {
      throw fail('the body is not JSON', text);
    }
  }
  if (!validate) return { data: json, response, requestId };
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(({ code, path, message }) => ({ code, path: [...path], message }));
    throw fail('the body does not match the contract', json, issues);
  }
  return { data: parsed.data, response, requestId };
}
