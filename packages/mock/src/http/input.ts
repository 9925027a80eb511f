import type { Operation } from '@svc-kit/contract';
import { invalid } from './refusal.js';
import { describeIssues, type Schema } from './schema.js';

/** Far above any body of the contract (the largest, a contact card, is 16 KiB); same bound as the service. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ValidatedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

function parseWith(schema: Schema, value: unknown, where: string): unknown {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(`invalid ${where}: ${describeIssues(result.error.issues)}`);
  return result.data;
}

function readQuery(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) throw invalid(`invalid query: ${name} is given ${values.length} times`);
    query[name] = values[0]!;
  }
  return query;
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (new TextEncoder().encode(text).length > MAX_BODY_BYTES) {
    throw invalid(`the body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  if (text.trim() === '') return undefined;
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw invalid('the body must be JSON (Content-Type: application/json)');
  try {
    return JSON.parse(text);
  } catch {
    throw invalid('the body is not valid JSON');
  }
}

/** An operation without a body still tolerates an empty one, `null` or `{}`, as the service does. */
function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
  );
}

/**
 * Path parameters, query and body checked against the operation's schemas from the contract: unknown
 * fields and query parameters are refused, defaults applied, and every problem named in one 400.
 */
export async function readInput(
  op: Operation,
  request: Request,
  rawParams: Readonly<Record<string, string | readonly string[] | undefined>>,
): Promise<ValidatedInput> {
  const params =
    op.pathParams === null ? undefined : parseWith(op.pathParams, { ...rawParams }, 'path parameters');
  const rawQuery = readQuery(new URL(request.url));
  let query: unknown;
  if (op.query === null) {
    if (Object.keys(rawQuery).length > 0) throw invalid('this operation takes no query parameters');
  } else {
    query = parseWith(op.query, rawQuery, 'query');
  }
  const rawBody = await readBody(request);
  let body: unknown;
  if (op.body === null) {
    if (!isEmpty(rawBody)) throw invalid('this operation takes no body');
  } else {
    body = parseWith(op.body, rawBody, 'body');
  }
  return { params, query, body };
}
