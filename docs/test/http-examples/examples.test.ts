import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@svc-kit/client';
import { type ExampleRequest, type OperationId, operations } from '@svc-kit/contract';
import { SANDBOX_API_KEY, SANDBOX_SESSION, SESSION_COOKIE } from '@svc-kit/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCall, curlCommand, exampleOf } from '../../scripts/reference/http-examples.mjs';
import { exampleSandbox, mockCardFor } from './fixture';
import { serveSandbox } from './mock-server';

const run = promisify(execFile);
const sandbox = exampleSandbox();
let server: Awaited<ReturnType<typeof serveSandbox>>;

beforeAll(async () => {
  server = await serveSandbox(sandbox);
});
afterAll(() => server.close());

/** Runs a curl command exactly as the page shows it, adding only what reads back the status. */
async function runCurl(command: string): Promise<{ status: number; body?: unknown }> {
  const { stdout } = await run('bash', ['-c', `${command} -s -w '\\n%{http_code}'`], {
    env: {
      ...process.env,
      SVC_BASE_URL: server.url,
      SVC_API_KEY: SANDBOX_API_KEY,
      SVC_SESSION: SANDBOX_SESSION,
    },
  });
  const lines = stdout.split('\n');
  const status = Number(lines.pop());
  const text = lines.join('\n');
  return { status, ...(text && { body: JSON.parse(text) }) };
}

/** Runs the client statement exactly as the page shows it, with a client pointed at the mock. */
async function runClient(statement: string, auth: 'apiKey' | 'session' | 'none'): Promise<unknown> {
  const client =
    auth === 'session'
      ? new Client({
          session: true,
          baseUrl: server.url,
          // Node has no cookie jar: send the portal's cookie as a browser would.
          fetch: (input, init) => {
            const headers = new Headers(init?.headers);
            headers.set('cookie', `${SESSION_COOKIE}=${SANDBOX_SESSION}`);
            headers.set('origin', new URL(server.url).origin);
            return fetch(input, { ...init, headers });
          },
        })
      : new Client({ apiKey: SANDBOX_API_KEY, baseUrl: server.url, maxRetries: 0 });
  const body = statement.startsWith('const answer = ') ? `${statement}\nreturn answer;` : statement;
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (client: Client) => Promise<unknown>;
  return new AsyncFunction('client', body)(client);
}

const ids = Object.keys(operations) as OperationId[];

/**
 * The call as the page shows it, except a card in the service's signed format, which goes to the mock as
 * the mock's own card of the same party (fixture.ts): the answer compared is still the one shown.
 */
function forTheMock(request: ExampleRequest): ExampleRequest {
  const body = request.body as { card?: unknown } | undefined;
  if (typeof body?.card !== 'string' || !body.card.startsWith('svc-card.v1.')) return request;
  return { ...request, body: { ...body, card: mockCardFor(body.card) } };
}

describe('the HTTP reference examples, run against the mock', () => {
  it.each(ids)('%s: the curl command gets the answer and the refusals shown', async (id) => {
    const example = exampleOf(id);
    sandbox.reset();
    expect(await runCurl(curlCommand(id, forTheMock(example.request)))).toEqual(example.answer);
    for (const refusal of example.refusals) {
      sandbox.reset();
      expect(await runCurl(curlCommand(id, forTheMock(refusal.request))), refusal.summary).toEqual(
        refusal.answer,
      );
    }
  });

  it.each(ids)('%s: the client call gets the answer shown', async (id) => {
    const example = exampleOf(id);
    sandbox.reset();
    const answer = await runClient(clientCall(id, forTheMock(example.request)), example.request.auth);
    // A 204 resolves to undefined; the client gives every other answer's parsed body.
    expect(answer).toEqual(example.answer.body);
  });
});
