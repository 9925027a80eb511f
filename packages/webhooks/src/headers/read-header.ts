import { WebhookVerificationError } from '../errors';

/** Fetch `Headers`, Node's `IncomingHttpHeaders`, or any plain record (looked up case-insensitively). */
export type HeaderInput = Headers | Record<string, string | readonly string[] | undefined>;

/** A header as found: absent, one value, or several (a repeated header in a plain record). */
export type HeaderValue =
  | { readonly kind: 'absent' }
  | { readonly kind: 'one'; readonly value: string }
  | { readonly kind: 'many'; readonly count: number }
  | { readonly kind: 'not_text' };

const ABSENT: HeaderValue = { kind: 'absent' };

function isFetchHeaders(headers: object): headers is Headers {
  return typeof (headers as { get?: unknown }).get === 'function';
}

function fromRaw(raw: unknown): HeaderValue {
  if (raw === undefined || raw === null) return ABSENT;
  if (typeof raw === 'string') return { kind: 'one', value: raw };
  if (Array.isArray(raw)) {
    if (raw.length === 0) return ABSENT;
    if (raw.length > 1) return { kind: 'many', count: raw.length };
    return fromRaw(raw[0]);
  }
  return { kind: 'not_text' };
}

function lookUp(headers: object, name: string): unknown {
  if (isFetchHeaders(headers)) return headers.get(name);
  const record = headers as Record<string, unknown>;
  // Node already lower-cases; hand-written records often do not.
  if (Object.hasOwn(record, name)) return record[name];
  for (const key of Object.keys(record)) {
    if (key.length === name.length && key.toLowerCase() === name) return record[key];
  }
  return undefined;
}

/**
 * Reads one header. `name` must be lower-case. Never throws anything but a typed error: a headers object
 * whose reading throws (a hostile proxy) is reported as `malformed_header`.
 */
export function readHeader(headers: unknown, name: string): HeaderValue {
  if (typeof headers !== 'object' || headers === null) return ABSENT;
  try {
    return fromRaw(lookUp(headers, name));
  } catch (error) {
    throw new WebhookVerificationError(
      'malformed_header',
      `The request headers could not be read (${name}).`,
      {
        cause: error,
      },
    );
  }
}

/** The header as one string, or `undefined` when absent; several values are joined as HTTP would. */
export function readHeaderText(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  try {
    const raw = lookUp(headers, name);
    if (typeof raw === 'string') return raw;
    if (Array.isArray(raw) && raw.every((item) => typeof item === 'string')) {
      return raw.length === 0 ? undefined : raw.join(', ');
    }
    return undefined;
  } catch {
    return undefined;
  }
}
