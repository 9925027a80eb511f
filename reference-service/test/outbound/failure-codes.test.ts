import { afterEach, describe, expect, it } from 'vitest';
import type { NoAnswerReason } from '../../src/domain/no-answer-reasons.js';
import { failureCode } from '../../src/outbound/failure-code.js';
import { createGuardedClient, type PostOutcome } from '../../src/outbound/guarded-client.js';
import { rawReceiver } from './raw-receiver.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function post(url: string, resolve: (name: string) => Promise<string[]> = async () => ['127.0.0.1']) {
  const client = createGuardedClient({ resolve, allowLocalhost: true, totalTimeoutMs: 2_000 });
  open.push(client);
  return client.post(url, {}, '{}');
}

const failedWith = (code: NoAnswerReason) => ({ kind: 'failed', code }) satisfies Partial<PostOutcome>;

/** The delivery log's code for each way a request gets no answer, told apart by the client alone. */
describe('the guarded client names why it got no answer', () => {
  it('a receiver that hangs up on the request without a status line: reset', async () => {
    const server = await rawReceiver((socket) => socket.destroy());
    open.push(server);
    expect(await post(`http://127.0.0.1:${server.port}/hook`)).toMatchObject(failedWith('reset'));
  });

  it('bytes that are not HTTP: invalid_response', async () => {
    const server = await rawReceiver((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    open.push(server);
    expect(await post(`http://127.0.0.1:${server.port}/hook`)).toMatchObject(failedWith('invalid_response'));
  });

  it('a plain HTTP answer to the TLS handshake: tls', async () => {
    const server = await rawReceiver((socket) =>
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'),
    );
    open.push(server);
    const outcome = await post(`https://127.0.0.1:${server.port}/hook`);
    expect(outcome).toMatchObject(failedWith('tls'));
  });

  it('a name that does not resolve: dns, and a name that resolves inside: guard_refused', async () => {
    const missing = async (name: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    };
    expect(await post('https://gone.example.com/hook', missing)).toMatchObject({
      kind: 'blocked',
      code: 'dns',
    });
    const inside = await post('https://inside.example.com/hook', async () => ['10.0.0.5']);
    expect(inside).toMatchObject({ kind: 'blocked', code: 'guard_refused' });
    // The address stays in the words for the service's log; the code names none.
    expect(inside.kind === 'blocked' && inside.reason).toMatch(/10\.0\.0\.5/);
    expect(await post('https://10.0.0.5/hook')).toMatchObject({ kind: 'blocked', code: 'guard_refused' });
  });

  it('reads the code of the first error in the chain that has one, never its text', () => {
    // What loopback cannot produce: a handshake that never completes, a network with no route.
    const wrapped = (code: string) =>
      new TypeError('fetch failed', {
        cause: Object.assign(new Error(`connect ${code} 10.1.2.3:443`), { code }),
      });
    expect(failureCode(wrapped('UND_ERR_CONNECT_TIMEOUT'))).toBe('connect_timeout');
    expect(failureCode(wrapped('ETIMEDOUT'))).toBe('connect_timeout');
    expect(failureCode(wrapped('EHOSTUNREACH'))).toBe('unreachable');
    // The service's host out of ephemeral ports: nothing the receiver's owner can mend.
    expect(failureCode(wrapped('EADDRNOTAVAIL'))).toBe('other');
    expect(failureCode(wrapped('ENETDOWN'))).toBe('other');
    expect(failureCode(wrapped('UND_ERR_HEADERS_OVERFLOW'))).toBe('invalid_response');
    expect(failureCode(wrapped('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls');
    expect(failureCode(wrapped('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('tls');
    expect(failureCode(wrapped('ESOMETHINGNEW'))).toBe('other');
    expect(failureCode(new Error('no code at all'))).toBe('other');
  });
});
