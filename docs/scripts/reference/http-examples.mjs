// @ts-check
// Turns the contract's worked examples (`operationExamples` of @svc-kit/contract) into what the HTTP
// reference shows for each operation: a curl command, the same call with @svc-kit/client, the answer and
// the usual refusals. docs/test/http-examples/ runs the very text these functions return against the
// mock, so an example on the site cannot drift from what the API answers.
import { operationExamples, operations } from '@svc-kit/contract';

/**
 * @typedef {import('@svc-kit/contract').OperationExample} OperationExample
 * @typedef {import('@svc-kit/contract').ExampleRequest} ExampleRequest
 * @typedef {keyof typeof operations} OperationId
 */

/** Where each operation lives on the client: `client.<resource>.<method>`. */
export const CLIENT_METHODS = /** @type {const} */ ({
  listWebhooks: ['webhooks', 'list'],
  createWebhook: ['webhooks', 'create'],
  rotateWebhookSecret: ['webhooks', 'rotateSecret'],
  setWebhookStatus: ['webhooks', 'setStatus'],
  deleteWebhook: ['webhooks', 'delete'],
  listWebhookDeliveries: ['webhooks', 'listDeliveries'],
  listContacts: ['contacts', 'list'],
  requestContact: ['contacts', 'request'],
  updateContact: ['contacts', 'update'],
  removeContact: ['contacts', 'remove'],
  approveContact: ['contacts', 'approve'],
  rejectContact: ['contacts', 'reject'],
  notifyAcceptance: ['contacts', 'notifyAcceptance'],
  listContactTools: ['contacts', 'listTools'],
  callContactTool: ['contacts', 'callTool'],
  blockContact: ['contacts', 'block'],
  unblockContact: ['contacts', 'unblock'],
  setPetname: ['contacts', 'setPetname'],
  refreshContact: ['contacts', 'refresh'],
  setTrust: ['contacts', 'setTrust'],
  listIntegrations: ['integrations', 'list'],
  createIntegration: ['integrations', 'create'],
  authorizeIntegration: ['integrations', 'authorize'],
  getExposure: ['integrations', 'getExposure'],
  setExposure: ['integrations', 'setExposure'],
  deleteIntegration: ['integrations', 'delete'],
});

/** Operations whose client method takes no body argument although the request has one (`{}`). */
const BODY_SENT_BY_CLIENT = new Set(['refreshContact']);

/** @param {string} value */
const shellQuote = (value) => `'${value.replace(/'/g, `'\\''`)}'`;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A value as JavaScript source, the way a person writes it: single quotes, bare keys, on one line when
 * short.
 * @param {unknown} value @param {string} indent
 * @returns {string}
 */
function jsLiteral(value, indent) {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((item) => jsLiteral(item, inner))
    : Object.entries(value).map(
        ([key, item]) => `${IDENTIFIER.test(key) ? key : jsLiteral(key, inner)}: ${jsLiteral(item, inner)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const oneLine = Array.isArray(value) ? `[${entries.join(', ')}]` : `{ ${entries.join(', ')} }`;
  if (oneLine.length <= 60 && !oneLine.includes('\n')) return oneLine;
  return `${open}\n${entries.map((entry) => `${inner}${entry},`).join('\n')}\n${indent}${close}`;
}

/** @param {OperationId} id @returns {OperationExample} */
export function exampleOf(id) {
  return operationExamples[id];
}

/** The path with the example's parameters filled in. @param {OperationId} id @param {ExampleRequest} request */
function filledPath(id, request) {
  const params = request.params ?? {};
  const path = operations[id].path.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${id}: the example has no value for {${name}}`);
    return encodeURIComponent(value).replace(/%3A/gi, ':');
  });
  const query = request.query
    ? `?${new URLSearchParams(Object.entries(request.query).map(([name, value]) => [name, String(value)]))}`
    : '';
  return `${path}${query}`;
}

/**
 * A curl command, one option per line so it fits the page. It reads the address and the credentials from
 * `SVC_BASE_URL`, `SVC_API_KEY` or `SVC_SESSION`.
 * @param {OperationId} id @param {ExampleRequest} request
 */
export function curlCommand(id, request) {
  const op = operations[id];
  const lines = [`curl -X ${op.method} "$SVC_BASE_URL${filledPath(id, request)}"`];
  if (request.auth === 'apiKey') lines.push(`-H "Authorization: Bearer $SVC_API_KEY"`);
  if (request.auth === 'session') {
    // A session write must show the portal's origin, as a browser sends it.
    lines.push(`-H "Cookie: __Host-svc_session=$SVC_SESSION"`, `-H "Origin: $SVC_BASE_URL"`);
  }
  if (request.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body))}`);
  }
  return lines.join(' \\\n  ');
}

/**
 * The same call with @svc-kit/client, as one statement: `const answer = await client.….(…);`.
 * @param {OperationId} id @param {ExampleRequest} request
 */
export function clientCall(id, request) {
  const op = operations[id];
  const [resource, method] = CLIENT_METHODS[id];
  const params = request.params ?? {};
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  /** @type {unknown[]} */
  const args = names.map((name) => params[name]);
  if (op.body !== null && !BODY_SENT_BY_CLIENT.has(id)) args.push(request.body);
  else if (op.query !== null && request.query !== undefined) args.push(request.query);
  const target = `await client.${resource}.${method}`;
  const inline = `${target}(${args.map((arg) => jsLiteral(arg, '')).join(', ')})`;
  // One argument a line when the call would not fit the page's column.
  const call =
    args.length <= 1 || (inline.length <= 72 && !inline.includes('\n'))
      ? inline
      : `${target}(\n${args.map((arg) => `  ${jsLiteral(arg, '  ')},`).join('\n')}\n)`;
  return op.success.schema === null ? `${call};` : `const answer = ${call};`;
}

/** How the client authenticates for an example: an API key, or the portal session in a browser. @param {ExampleRequest} request */
export function clientSetup(request) {
  return request.auth === 'session'
    ? "// In the portal (a browser page): the session cookie authenticates the call.\nconst client = new Client({ session: true, baseUrl: 'https://portal.example' });"
    : 'const client = new Client({ apiKey: process.env.SVC_API_KEY, baseUrl: process.env.SVC_BASE_URL });';
}
