import { buildOpenApiDocument } from '@svc-kit/contract';
import { type HttpHandler, HttpResponse, http, type JsonBodyType } from 'msw';
import type { IdSource } from '../random/ids.js';
import { errorResponse, REQUEST_ID_HEADER } from './respond.js';

function isWellFormedPath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Goes first: msw's path matching decodes every parameter and throws on a malformed escape (`%E0%A4%A`),
 * which would surface as msw's own 500, and matches a path with a trailing slash as the path without. A RegExp route without groups is matched without decoding, so this
 * handler can answer the spec's 400 instead; for a well-formed path it answers nothing and msw moves on.
 */
export function malformedPathGuard(base: string, ids: () => IdSource): HttpHandler {
  return http.all(new RegExp(`^${escapeRegExp(base)}/v1(?:/|$)`), ({ request }) => {
    const { pathname } = new URL(request.url);
    // msw's matching takes `/a/` for `/a`; the service routes paths exactly, so a trailing slash is no route.
    if (pathname.endsWith('/')) {
      return errorResponse(ids().requestId(), {
        status: 404,
        code: 'not_found',
        message: `no such route: ${request.method} ${pathname}`,
      });
    }
    if (isWellFormedPath(pathname)) return undefined;
    return errorResponse(ids().requestId(), {
      status: 400,
      code: 'invalid_request',
      message: 'the path holds a malformed percent-escape',
    });
  });
}

/**
 * The two routes besides the operations: the OpenAPI document at `/v1/openapi.json` (spec part 9), and a
 * 404 `not_found` for every other `/v1` path or method, as the service answers an unknown route.
 */
export function fallbackHandlers(base: string, ids: () => IdSource): HttpHandler[] {
  let document: JsonBodyType | undefined;
  return [
    http.get(`${base}/v1/openapi.json`, () => {
      document ??= buildOpenApiDocument() as JsonBodyType;
      return HttpResponse.json(document, { headers: { [REQUEST_ID_HEADER]: ids().requestId() } });
    }),
    http.all(`${base}/v1/*`, ({ request }) =>
      errorResponse(ids().requestId(), {
        status: 404,
        code: 'not_found',
        message: `no such route: ${request.method} ${new URL(request.url).pathname}`,
      }),
    ),
  ];
}
