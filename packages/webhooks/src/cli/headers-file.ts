import { UsageError } from './usage-error';

/** Header name to value(s), as a Node server would hand them over (repeated headers become a list). */
export type CapturedHeaders = Record<string, string | string[]>;

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/\d(\.\d)?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Without a prototype, names such as `constructor` or `__proto__` are ordinary keys. */
function emptyHeaders(): CapturedHeaders {
  return Object.create(null) as CapturedHeaders;
}

function add(headers: CapturedHeaders, name: string, value: string): void {
  const key = name.toLowerCase();
  const existing = headers[key];
  if (existing === undefined) headers[key] = value;
  else headers[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
}

function fromJson(text: string, file: string): CapturedHeaders {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} starts with "{" but is not valid JSON.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${file} must hold one JSON object of header names to values.`);
  }
  const headers = emptyHeaders();
  for (const [name, value] of Object.entries(parsed)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item !== 'string') {
        throw new UsageError(`${file}: the value of header "${name}" must be a string or a list of strings.`);
      }
      add(headers, name, item);
    }
  }
  return headers;
}

/**
 * Raw HTTP as copied from a request log, a proxy or `curl -v`: an optional request line, then
 * `Name: value` lines, up to the first blank line (a body after it is ignored; pass it with --body).
 */
function fromRawHttp(text: string, file: string): CapturedHeaders {
  const headers = emptyHeaders();
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    // `curl -v` prefixes what it sent with "> ".
    const line = lines[index]!.replace(/^> ?/, '');
    if (line.trim() === '') {
      if (Object.keys(headers).length > 0) break;
      continue;
    }
    if (index === 0 && REQUEST_LINE.test(line.trim())) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon);
    if (!HEADER_NAME.test(name)) {
      throw new UsageError(
        `${file}, line ${index + 1}: expected "Name: value" (raw HTTP headers) or a JSON object of headers.`,
      );
    }
    add(headers, name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** Reads a headers file in either form; the form is told apart by its first character. */
export function parseHeadersFile(text: string, file: string): CapturedHeaders {
  const content = text.replace(/^\uFEFF/, '');
  return content.trimStart().startsWith('{') ? fromJson(content, file) : fromRawHttp(content, file);
}
