import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createTestHeaders, Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler, type FetchHandler } from '@svc-kit/webhooks/fetch';
import { describe, expect, it } from 'vitest';
import { adapterContract } from './contract';
import { EVENT, errorOf, recordingWebhooks, SECRET, signedDelivery } from './fixtures';

const URL_ = 'https://receiver.example/webhooks';

adapterContract('fetch (Request objects)', async (webhooks, options) => {
  const handler = createFetchHandler(webhooks, options);
  return { send: (init) => handler(new Request(URL_, init)), close: async () => {} };
});

/** A minimal `node:http` → fetch bridge, the way Node servers for Web handlers (Hono's, Remix's) work. */
function serveFetch(handler: FetchHandler) {
  return createServer((req, res) => {
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method ?? 'GET',
      headers: req.headers as Record<string, string>,
      ...(req.method === 'POST'
        ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' as const }
        : {}),
    });
    void handler(request).then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
}

adapterContract('fetch (served by node:http)', async (webhooks, options) => {
  const server = serveFetch(createFetchHandler(webhooks, options));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    send: (init) => fetch(`http://127.0.0.1:${port}/webhooks`, init),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});

describe('fetch adapter', () => {
  it('refuses, with the fix, a Request whose body was already read, and reports it to onError once', async () => {
    const { webhooks, received, errors } = recordingWebhooks();
    const handler = createFetchHandler(webhooks);
    const delivery = await signedDelivery();
    for (let attempt = 0; attempt < 2; attempt++) {
      const request = new Request(URL_, { method: 'POST', body: delivery.body, headers: delivery.headers });
      await request.json();
      const response = await handler(request);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.reason).toBe('body_was_parsed');
      expect(error.message).toContain('handler(c.req.raw)');
    }
    expect(received).toEqual([]);
    expect(errors.map((error) => error.reason)).toEqual(['body_was_parsed']);
  });

  it('answers 405 to GET and HEAD', async () => {
    const handler = createFetchHandler(new Webhooks({ secret: SECRET }));
    const get = await handler(new Request(URL_));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await errorOf(get)).reason).toBe('method_not_allowed');
    const head = await handler(new Request(URL_, { method: 'HEAD' }));
    expect(head.status).toBe(405);
  });

  it('answers 413 from Content-Length alone, without reading the body', async () => {
    const handler = createFetchHandler(new Webhooks({ secret: SECRET }), { maxBodyBytes: 16 });
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const request = new Request(URL_, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'content-length': String(1024 * 1024) },
    } as RequestInit);
    const response = await handler(request);
    expect(response.status).toBe(413);
    // The stream's first pull may already have been queued when it was created; nothing past that is read.
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('stops reading an endless body at the limit', async () => {
    const handler = createFetchHandler(new Webhooks({ secret: SECRET }), { maxBodyBytes: 4096 });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const response = await handler(
      new Request(URL_, { method: 'POST', body: endless, duplex: 'half' } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it('hands the core the exact bytes received, never a decoded copy', async () => {
    const { webhooks, received } = recordingWebhooks();
    const handler = createFetchHandler(webhooks);
    // 0xff is not UTF-8: decoding it to text would turn it into U+FFFD and break the signature. Passed on
    // as bytes, the signature verifies and the body is refused for what it is: not JSON text.
    const encode = (text: string) => new TextEncoder().encode(text);
    const body = new Uint8Array([...encode('{"id":"evt_1","note":"'), 0xff, ...encode('"}')]);
    const headers = await createTestHeaders(body, {
      secret: SECRET,
      eventId: 'evt_1',
      eventType: EVENT.type,
    });
    const response = await handler(new Request(URL_, { method: 'POST', body, headers }));
    expect((await errorOf(response)).reason).toBe('invalid_json');
    expect(received).toEqual([]);
  });

  it('imports nothing from node:, directly or through its own modules (Workers, Deno, Bun)', async () => {
    const seen = new Set<string>();
    const specifiers: string[] = [];
    const visit = async (file: URL) => {
      if (seen.has(file.href)) return;
      seen.add(file.href);
      for (const [, specifier] of (await readFile(file, 'utf8')).matchAll(/from '([^']+)'/g)) {
        specifiers.push(specifier!);
        if (specifier!.startsWith('.')) await visit(new URL(`${specifier}.ts`, file));
      }
    };
    await visit(new URL('../../src/adapters/fetch.ts', import.meta.url));
    expect(seen.size).toBeGreaterThan(1);
    expect(specifiers.filter((specifier) => specifier.startsWith('node:'))).toEqual([]);
  });
});
