import { expandPath, type Operation } from '@svc-kit/contract';
import {
  ClientValidationError,
  type ValidationIssue,
  type ValidationTarget,
} from '../errors/validation-errors.js';

/** What a caller passes to an operation, before validation. */
export interface RawInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

export interface PreparedRequest {
  /** Absolute URL: base, expanded path (segments percent-encoded), query. */
  url: string;
  /** The JSON text to send; `undefined` for operations without a body. */
  body: string | undefined;
}

interface SafeParser {
  safeParse(value: unknown):
    | { success: true; data: unknown }
    | {
        success: false;
        error: { issues: readonly { code: string; path: PropertyKey[]; message: string }[] };
      };
}

/**
 * Checks a call's arguments against the contract and builds what goes on the wire. Defaults of the
 * contract are applied (an absent body of approveContact is sent as `{ "preset": "basic" }`), so the
 * service receives exactly what the contract describes.
 */
export function prepareRequest(op: Operation, input: RawInput, baseUrl: string): PreparedRequest {
  const params = parsePart(op, 'params', op.pathParams, input.params);
  const query = parsePart(op, 'query', op.query, input.query);
  const body = parsePart(op, 'body', op.body, input.body);
  let path: string;
  try {
    path = expandPath(op.path, (params ?? {}) as Record<string, string>);
  } catch (error) {
    throw invalid(op, 'params', [{ code: 'invalid_path', path: [], message: (error as Error).message }]);
  }
  return {
    url: `${baseUrl}${path}${queryString(query)}`,
    body: op.body === null ? undefined : JSON.stringify(body),
  };
}

function parsePart(op: Operation, target: ValidationTarget, schema: unknown, value: unknown): unknown {
  if (schema === null) {
    if (value === undefined) return undefined;
    throw invalid(op, target, [
      { code: 'unexpected', path: [], message: `${op.operationId} takes no ${target}` },
    ]);
  }
  // An absent part is an empty object: optional fields and defaults apply, required ones are named.
  const result = (schema as SafeParser).safeParse(value === undefined ? {} : value);
  if (result.success) return result.data;
  throw invalid(
    op,
    target,
    result.error.issues.map(({ code, path, message }) => ({ code, path: [...path], message })),
  );
}

function queryString(query: unknown): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function invalid(op: Operation, target: ValidationTarget, issues: ValidationIssue[]): ClientValidationError {
  return new ClientValidationError({ operationId: op.operationId, target, issues });
}
