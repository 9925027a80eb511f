// The pieces of `svc-webhooks listen` that need no service: the SSE reader and the advice on local answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adviceFor } from '../../src/cli/forward';
import { readSse, type SseMessage } from '../../src/cli/sse';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(streamOf(chunks))) messages.push(message);
  return messages;
}

/** Cuts `text` at the given offsets, as the network may. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let last = 0;
  for (const point of points) {
    parts.push(text.slice(last, point));
    last = point;
  }
  parts.push(text.slice(last));
  return parts;
}

describe('readSse', () => {
  it('reads named events, skips comments and joins data lines', async () => {
    const text = ': ping\n\nevent: ready\ndata: {"a":1}\n\ndata: one\ndata: two\n\nevent: end\ndata: {}\n\n';
    expect(await collect([text])).toEqual([
      { event: 'ready', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
      { event: 'end', data: '{}' },
    ]);
  });

  it('reads the same messages however the bytes are cut and whichever line ending is used', async () => {
    const json = fc.json({ maxDepth: 2 }).map((value) => JSON.stringify(JSON.parse(value)));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('ready', 'delivery', 'end'), json), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (messages, eol, offsets) => {
          const text = messages
            .map(([event, data]) => `event: ${event}${eol}data: ${data}${eol}${eol}`)
            .join('');
          const read = await collect(cut(text, offsets));
          expect(read).toEqual(messages.map(([event, data]) => ({ event, data })));
        },
      ),
    );
  });

  it('drops a message the stream ended in the middle of', async () => {
    expect(await collect(['event: ready\ndata: {"a":1}\n\nevent: delivery\ndata: {"b"'])).toEqual([
      { event: 'ready', data: '{"a":1}' },
    ]);
  });
});

describe('adviceFor: what listen tells the person about a local answer', () => {
  const to = 'http://localhost:3000/webhooks';
  it('names the fix for each failure it recognises, and says nothing on success', () => {
    expect(adviceFor({ kind: 'answered', status: 200, latencyMs: 1, excerpt: 'ok' }, to)).toBeUndefined();
    expect(
      adviceFor({ kind: 'failed', failure: 'refused', latencyMs: 1, detail: 'x', tls: false }, to),
    ).toMatch(/Nothing is listening at http:\/\/localhost:3000\/webhooks/);
    expect(adviceFor({ kind: 'answered', status: 404, latencyMs: 1, excerpt: 'Cannot POST' }, to)).toMatch(
      /no POST route at \/webhooks/,
    );
    expect(
      adviceFor(
        { kind: 'answered', status: 401, latencyMs: 1, excerpt: '{"reason":"signature_mismatch"}' },
        to,
      ),
    ).toMatch(/--print-secret/);
    expect(
      adviceFor({ kind: 'failed', failure: 'timeout', latencyMs: 1, detail: 'x', tls: false }, to),
    ).toMatch(/10 s/);
    expect(adviceFor({ kind: 'answered', status: 500, latencyMs: 1, excerpt: '' }, to)).toMatch(
      /its own log/,
    );
  });
});
