import { hash } from 'node:crypto';
import { type ErrorCode, statusOfErrorCode } from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitedError, type ServiceError } from '../../domain/errors.js';
import { sendServiceError } from '../../http/error-body.js';

/**
 * A refusal of the OAuth callback, for the person whose browser the authorization server sent back: a
 * page in the portal's look that says what happened, with the request id and a way back, instead of raw
 * JSON. Programs (no browser navigation) keep the JSON error body.
 *
 * The page stands alone: the portal's stylesheet has a hashed name known only to its build, so the few
 * rules it needs are inline, allowed by their hash in this page's own CSP; it has no script at all.
 */
const STYLE = `body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1a1a1a;background:#fafafa;line-height:1.5}
header{background:#12324f;color:#fff;padding:.5rem 1.5rem;font-weight:700}
main{max-width:34rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem}
.problem{border:1px solid #b3261e;background:#fdecea;padding:.5rem 1rem;border-radius:4px}
a{color:#0b4f8a}
code{font-family:ui-monospace,monospace}`;

const STYLE_HASH = hash('sha256', STYLE, 'base64');

export const CALLBACK_PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; ` +
  "form-action 'none'";

/** What the person reads first, by refusal; the service's own message follows it. */
const LEAD: Partial<Record<ErrorCode, string>> = {
  invalid_request:
    'The authorization server did not send back what the service needs to finish (it may have refused).',
  not_found:
    'This return link is unknown, expired or was used already. Start the authorization again from the integrations page.',
  upstream_failed:
    'The MCP server or its authorization server failed while the service finished the authorization.',
  rate_limited: 'The service is busy for a moment. Load this page again once the wait below has passed.',
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** A person's browser following a redirect: it gets this page, and the callback's redirect on success. */
export const isNavigation = (request: FastifyRequest) => request.headers['sec-fetch-mode'] === 'navigate';

export function callbackRefusalPage(code: ErrorCode, message: string, requestId: string): string {
  const lead = LEAD[code] ?? 'The authorization could not be finished.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorization not finished · svc-kit portal</title>
<style>${STYLE}</style>
</head>
<body>
<header>svc-kit sandbox</header>
<main>
<h1>The authorization was not finished</h1>
<div class="problem" role="alert">
<p>${escapeHtml(lead)}</p>
<p>The service said: ${escapeHtml(message)} (${statusOfErrorCode(code)} <code>${code}</code>)</p>
<p>Request id: <code>${escapeHtml(requestId)}</code></p>
</div>
<p>Nothing was changed on the integration. <a href="/#/integrations">Back to the integrations page</a></p>
</main>
</body>
</html>
`;
}

/**
 * Answers a refusal of the callback: the page above to a browser, the JSON error body to a program; a 429
 * says when to retry (`Retry-After`) to both.
 */
export function sendCallbackRefusal(request: FastifyRequest, reply: FastifyReply, refusal: ServiceError) {
  if (!isNavigation(request)) return sendServiceError(request, reply, refusal);
  const { code, message } = refusal;
  if (refusal instanceof RateLimitedError) reply.header('retry-after', String(refusal.retryAfterSeconds));
  return reply
    .code(statusOfErrorCode(code))
    .headers({
      'content-security-policy': CALLBACK_PAGE_CSP,
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .type('text/html; charset=utf-8')
    .send(callbackRefusalPage(code, message, request.id));
}
