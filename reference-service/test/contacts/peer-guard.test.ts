import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_VALIDITY_MS, mintCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8 } from '../../src/peer/keys.js';
import { BACKENDS } from '../support/backends.js';
import { testResolve } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { createParty, type Instance, startInstance, statusesOf, TestClock } from './support.js';

const REBINDING_NAME = 'rebind.peer.test';

/** A card of a fresh identity whose peer endpoint is `endpoint`, signed as the service would. */
function cardFor(endpoint: string, now: number): string {
  const pair = generateIdentityKeyPair();
  return mintCard(
    {
      fingerprint: pair.fingerprint,
      public_key: pair.publicKey,
      display_name: 'mallory',
      endpoint,
      issued_at: now,
      expires_at: now + CARD_VALIDITY_MS,
    },
    privateKeyFromPkcs8(pair.privateKeyPkcs8),
  );
}

/**
 * Outbound peer calls go through the guarded client: the address checked is the address connected to.
 * The instances run with the sandbox opt-in for loopback peers, which admits `localhost`/`127.0.0.1`
 * endpoints only, never another name that happens to resolve to loopback.
 */
describe.each(BACKENDS)('peer calls through the outbound guard on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let listener: Server;
  let listenerPort = 0;
  let connections = 0;
  const sockets: Socket[] = [];
  let rebindingLookups = 0;

  /** First answer public (passes the card's endpoint check), every later one loopback: DNS rebinding. */
  async function rebindingResolve(hostname: string): Promise<string[]> {
    if (hostname !== REBINDING_NAME) return testResolve(hostname);
    rebindingLookups++;
    return rebindingLookups === 1 ? ['93.184.215.14'] : ['127.0.0.1'];
  }

  beforeAll(async () => {
    // Stands where a rebound name would lead: every TCP connection it gets is counted.
    listener = createServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    listenerPort = (listener.address() as AddressInfo).port;
    one = await startInstance(store, clock, undefined, { resolveHost: rebindingResolve });
  });
  afterAll(async () => {
    await one?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it('refuses a peer whose name resolves to loopback at call time, without opening a connection', async () => {
    const alice = await createParty(one, 'alice');
    rebindingLookups = 0;
    connections = 0;
    const card = cardFor(`https://${REBINDING_NAME}:${listenerPort}/peer/v1`, clock.at);
    const error = await alice.api.contacts.request(alice.slug, { card }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((error as Error).message).toContain(
      `the hostname ${REBINDING_NAME} resolves to a forbidden address (127.0.0.1)`,
    );
    // The endpoint check saw the public answer; the call resolved again, through the guard, and stopped.
    expect(rebindingLookups).toBe(2);
    expect(connections).toBe(0);
    expect(await statusesOf(alice)).toEqual({});
  });

  it('refuses a peer whose name mixes public and private addresses, without opening a connection', async () => {
    const alice = await createParty(one, 'alice');
    connections = 0;
    const card = cardFor(`https://mixed.example.com:${listenerPort}/peer/v1`, clock.at);
    const error = await alice.api.contacts.request(alice.slug, { card }).catch((e: unknown) => e);
    // Every address must be global at registration too, so the card is refused before any call.
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((error as Error).message).toContain(
      'the hostname mixed.example.com resolves to a private or reserved address (10.0.0.1)',
    );
    expect(connections).toBe(0);
    expect(await statusesOf(alice)).toEqual({});
  });
});
