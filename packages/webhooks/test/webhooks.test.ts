import * as nodeBuild from '@svc-kit/webhooks';
import {
  DuplicateGuard,
  type EventOfType,
  MAX_RESPONSE_BYTES,
  MemoryDuplicateStore,
  STATUS_BY_REASON,
  type WebhookEvent,
  WebhookHandlerError,
  type WebhookVerificationError,
} from '@svc-kit/webhooks';
import * as webBuild from '@svc-kit/webhooks/web';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { clock, delivery, messageEvent, NOW_S, referenceHeader, SECRET } from './support/fixtures';

const contactEvent = messageEvent({
  id: 'evt_contact_1',
  type: 'contact.approved',
  data: { contact: `sha256:${'f'.repeat(64)}` },
});

describe.each([
  ['node', nodeBuild.Webhooks],
  ['web', webBuild.Webhooks],
])('Webhooks (%s build)', (_, Webhooks) => {
  const make = (options: Partial<nodeBuild.WebhooksOptions> = {}) =>
    new Webhooks({ secret: SECRET, now: clock, ...options });

  describe('handlers', () => {
    it('runs on() handlers of the type, and onAny handlers, with the delivery context', async () => {
      const calls: string[] = [];
      const webhooks = make()
        .on('message.received', (event, context) => {
          expectTypeOf(event).toEqualTypeOf<EventOfType<'message.received'>>();
          calls.push(`message:${event.data.thread_id}:${context.deliveryId}:${context.eventId}`);
        })
        .on('contact.approved', () => {
          calls.push('contact');
        })
        .onAny((event, context) => {
          calls.push(`any:${event.type}:${context.eventType}`);
        });
      const response = await webhooks.handle(delivery());
      expect(response.status).toBe(200);
      expect(calls.sort()).toEqual([
        'any:message.received:message.received',
        'message:thr_8f2k:dlv_0001:evt_01JD5X0W7Q3ZP8M2K4N6R9T1VB',
      ]);
    });

    it('accepts a list of types', async () => {
      const seen: string[] = [];
      const webhooks = make().on(['message.received', 'contact.approved'], (event) => {
        expectTypeOf(event.type).toEqualTypeOf<'message.received' | 'contact.approved'>();
        seen.push(event.type);
      });
      await webhooks.handle(delivery());
      await webhooks.handle(delivery(contactEvent));
      expect(seen).toEqual(['message.received', 'contact.approved']);
    });

    it('gives an unknown event type to onAny only', async () => {
      const seen: WebhookEvent[] = [];
      const webhooks = make()
        .on('message.received', () => {
          throw new Error('must not run');
        })
        .onAny((event) => {
          seen.push(event);
        });
      const event = messageEvent({ type: 'thread.archived', data: { thread_id: 't' } });
      const response = await webhooks.handle(delivery(event));
      expect(response.status).toBe(200);
      expect(seen).toEqual([event]);
    });

    it('refuses to register an unknown or reserved type (a typo would never fire)', () => {
      expect(() => make().on('message.recieved' as never, () => {})).toThrow(
        expect.objectContaining({
          reason: 'invalid_options',
          message: expect.stringMatching(/not an event type/),
        }),
      );
      expect(() => make().on(['message.received', 'message.sent'] as never, () => {})).toThrow(/reserved/);
    });

    it.each([
      ['message.recieved', 'message.received'],
      ['Contact.Approved', 'contact.approved'],
      ['message_received', 'message.received'],
      ['integration.exposure-updated', 'integration.exposure_updated'],
      ['contact.aproved', 'contact.approved'],
    ])('suggests the catalogue name for the typo %j', (typo, suggestion) => {
      expect(() => make().on(typo as never, () => {})).toThrow(`did you mean "${suggestion}"?`);
      expect(() => make().off(typo as never, () => {})).toThrow(
        `Webhooks.off: "${typo}" is not an event type`,
      );
    });

    it('suggests nothing for a name that is not close to any type', () => {
      expect(() => make().on('invoice.paid' as never, () => {})).toThrow(
        'Webhooks.on: "invoice.paid" is not an event type. Use onAny for every event, or one of EVENT_TYPES.',
      );
    });

    it('off(), removeListener(), offAny() and offError() stop a handler; others keep running', async () => {
      const calls: string[] = [];
      const kept = () => {
        calls.push('kept');
      };
      const removed = () => {
        calls.push('removed');
      };
      const removedByAlias = () => {
        calls.push('alias');
      };
      const any = () => {
        calls.push('any');
      };
      const onError = () => {
        calls.push('error');
      };
      const webhooks = make()
        .on('message.received', kept)
        .on(['message.received', 'contact.approved'], removed)
        .on('message.received', removedByAlias)
        .onAny(any)
        .onError(onError);
      expect(webhooks.off(['message.received', 'contact.approved'], removed)).toBe(webhooks);
      webhooks.removeListener('message.received', removedByAlias).offAny(any).offError(onError);
      // A handler that was never registered is ignored.
      webhooks.off('contact.removed', kept).offAny(kept);
      await webhooks.handle(delivery());
      await webhooks.handle(delivery(contactEvent));
      await webhooks.handle({ ...delivery(), body: 'tampered' });
      expect(calls).toEqual(['kept']);
    });

    it('off() takes out one registration at a time, the latest first', async () => {
      let runs = 0;
      const handler = () => {
        runs++;
      };
      const webhooks = make({ dedupe: false })
        .on('message.received', handler)
        .on('message.received', handler);
      webhooks.off('message.received', handler);
      await webhooks.handle(delivery());
      expect(runs).toBe(1);
      webhooks.off('message.received', handler);
      await webhooks.handle(delivery());
      expect(runs).toBe(1);
    });

    it('awaits async handlers before answering', async () => {
      let done = false;
      const webhooks = make().onAny(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        done = true;
      });
      await webhooks.handle(delivery());
      expect(done).toBe(true);
    });

    it('receive() runs handlers for an event verified elsewhere, with a default context', async () => {
      const contexts: unknown[] = [];
      const webhooks = make().onAny((_event, context) => {
        contexts.push(context);
      });
      const event = nodeBuild.parseEvent(messageEvent());
      await webhooks.receive(event);
      expect(contexts).toEqual([{ deliveryId: undefined, eventId: event.id, eventType: event.type }]);
    });
  });

  describe('a throwing handler', () => {
    it('answers 500 without the handler message, and tells onError', async () => {
      const errors: unknown[] = [];
      const webhooks = make()
        .on('message.received', () => {
          throw new Error('db password is hunter2');
        })
        .onError((error, context) => {
          errors.push([error, context]);
        });
      const response = await webhooks.handle(delivery());
      expect(response.status).toBe(500);
      expect(JSON.parse(response.body)).toMatchObject({ error: { reason: 'handler_failed' } });
      expect(response.body).not.toContain('hunter2');
      const [[error, context]] = errors as [[WebhookHandlerError, unknown]];
      expect(error).toBeInstanceOf(WebhookHandlerError);
      expect(error.cause).toEqual(new Error('db password is hunter2'));
      expect(error.event.id).toBe(messageEvent().id);
      expect(context).toMatchObject({ deliveryId: 'dlv_0001', eventId: messageEvent().id });
    });

    it('still runs the other handlers, and reports all failures together', async () => {
      let ran = false;
      const webhooks = make()
        .onAny(() => Promise.reject(new Error('one')))
        .onAny(() => {
          ran = true;
        })
        .on('message.received', () => {
          throw new Error('two');
        });
      const event = nodeBuild.parseEvent(messageEvent());
      const error = await webhooks.receive(event).catch((caught: unknown) => caught);
      expect(ran).toBe(true);
      expect(error).toBeInstanceOf(WebhookHandlerError);
      expect((error as WebhookHandlerError).cause).toBeInstanceOf(AggregateError);
      expect(((error as WebhookHandlerError).cause as AggregateError).errors).toHaveLength(2);
    });

    it('answers 200 with acknowledgeHandlerErrors', async () => {
      const webhooks = make({ acknowledgeHandlerErrors: true }).onAny(() => {
        throw new Error('x');
      });
      const response = await webhooks.handle(delivery());
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ received: true, handler_failed: true });
    });

    it('is not made worse by a throwing onError', async () => {
      const webhooks = make()
        .onAny(() => {
          throw new Error('x');
        })
        .onError(() => {
          throw new Error('logger broke');
        });
      expect((await webhooks.handle(delivery())).status).toBe(500);
    });
  });

  describe('refused deliveries', () => {
    const { body, headers } = delivery();
    const cases: Array<[string, () => Promise<nodeBuild.WebhookResponse>, number, string]> = [
      ['no signature', () => make().handle({ body, headers: {} }), 400, 'missing_header'],
      ['a parsed body', () => make().handle({ body: JSON.parse(body), headers }), 400, 'body_was_parsed'],
      [
        'a wrong secret',
        () => new Webhooks({ secret: 'other', now: clock }).handle({ body, headers }),
        401,
        'no_matching_signature',
      ],
      [
        'an old delivery',
        () => make({ now: () => (NOW_S + 3600) * 1000 }).handle({ body, headers }),
        401,
        'timestamp_too_old',
      ],
      [
        'a changed id header',
        () => make().handle({ body, headers: { ...headers, 'x-service-event-id': 'evt_x' } }),
        400,
        'header_mismatch',
      ],
    ];

    it.each(cases)('answers %s with the status of its reason', async (_, run, status, reason) => {
      const response = await run();
      expect(response.status).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const parsed = JSON.parse(response.body) as { error: { reason: string; message: string } };
      expect(parsed.error.reason).toBe(reason);
      expect(parsed.error.message.length).toBeGreaterThan(20);
      expect(response.body).not.toContain(SECRET);
      expect(new TextEncoder().encode(response.body).length).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    });

    it('maps every reason to 400, 401 or 500', () => {
      for (const status of Object.values(STATUS_BY_REASON)) expect([400, 401, 500]).toContain(status);
      expect(STATUS_BY_REASON.no_matching_signature).toBe(401);
      expect(STATUS_BY_REASON.invalid_secret).toBe(500);
    });

    it('tells onError, with the unverified header ids', async () => {
      const seen: unknown[] = [];
      const webhooks = make().onError((error, context) => {
        seen.push([(error as WebhookVerificationError).reason, context]);
      });
      await webhooks.handle({ body: 'tampered', headers });
      expect(seen).toEqual([
        [
          'no_matching_signature',
          { deliveryId: 'dlv_0001', eventId: headers['x-service-event-id'], eventType: 'message.received' },
        ],
      ]);
    });

    it('answers 405 to a method other than POST', async () => {
      const response = await make().handle({ body, headers, method: 'GET' });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect((await make().handle({ body, headers, method: 'post' })).status).toBe(200);
    });

    it('never throws, even without a request', async () => {
      expect((await make().handle(undefined as never)).status).toBe(500);
      expect((await make().handle({ body: 1, headers: null as never })).status).toBe(400);
    });

    it('keeps a long message within the logged 500 bytes', async () => {
      const secrets = Array.from({ length: 30 }, (_, i) => ` whsec_${i} `);
      const response = await new Webhooks({ secret: secrets, now: clock }).handle({ body, headers });
      expect(response.status).toBe(401);
      expect(new TextEncoder().encode(response.body).length).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
      expect(JSON.parse(response.body).error.message).toMatch(/…$/);
    });
  });

  describe('set-up mistakes', () => {
    it('throw from the constructor, before any delivery', () => {
      expect(() => new Webhooks({ secret: '' })).toThrow(
        expect.objectContaining({ reason: 'invalid_secret' }),
      );
      expect(() => new Webhooks({ secret: SECRET, toleranceSeconds: 0 })).toThrow(
        expect.objectContaining({ reason: 'invalid_options' }),
      );
    });
  });

  describe('duplicates', () => {
    it('are suppressed by default: a replay inside the tolerance does not run the handlers twice', async () => {
      let runs = 0;
      const webhooks = make().onAny(() => {
        runs++;
      });
      const captured = delivery();
      expect(await webhooks.handle(captured)).toMatchObject({ status: 200, body: '{"received":true}' });
      expect(await webhooks.handle(captured)).toMatchObject({
        status: 200,
        body: '{"received":true,"duplicate":true}',
      });
      expect(runs).toBe(1);
    });

    it('run every verified delivery with dedupe: false', async () => {
      let runs = 0;
      const webhooks = make({ dedupe: false }).onAny(() => {
        runs++;
      });
      await webhooks.handle(delivery());
      await webhooks.handle(delivery());
      expect(runs).toBe(2);
    });

    it('use the store given to the guard instead of the default one', async () => {
      const claimed: string[] = [];
      const store = {
        claim: async (key: string) => {
          claimed.push(key);
          return claimed.length === 1;
        },
        release: async () => {},
      };
      const webhooks = make({ dedupe: new DuplicateGuard(store) });
      await webhooks.handle(delivery());
      expect(JSON.parse((await webhooks.handle(delivery())).body)).toEqual({
        received: true,
        duplicate: true,
      });
      expect(claimed).toEqual([
        'svc-webhooks:event:evt_01JD5X0W7Q3ZP8M2K4N6R9T1VB',
        'svc-webhooks:event:evt_01JD5X0W7Q3ZP8M2K4N6R9T1VB',
      ]);
    });

    it('refuse a dedupe option that is neither a guard nor false, at construction', () => {
      expect(() => make({ dedupe: true as never })).toThrow(
        expect.objectContaining({ reason: 'invalid_options' }),
      );
    });

    it('answers a repeated event id 200 without running handlers again', async () => {
      let runs = 0;
      const webhooks = make({ dedupe: new DuplicateGuard() }).onAny(() => {
        runs++;
      });
      const first = await webhooks.handle(delivery());
      const again = await webhooks.handle({
        ...delivery(),
        headers: { ...delivery().headers, 'x-service-delivery': 'dlv_2' },
      });
      expect(first).toMatchObject({ status: 200, body: '{"received":true}' });
      expect(again).toMatchObject({ status: 200, body: '{"received":true,"duplicate":true}' });
      expect(runs).toBe(1);
    });

    it('runs a redelivery again after a handler failed', async () => {
      let runs = 0;
      const webhooks = make({ dedupe: new DuplicateGuard(new MemoryDuplicateStore()) }).onAny(() => {
        runs++;
        if (runs === 1) throw new Error('transient');
      });
      expect((await webhooks.handle(delivery())).status).toBe(500);
      expect((await webhooks.handle(delivery())).status).toBe(200);
      expect(runs).toBe(2);
    });

    it('does not claim an event for a refused delivery', async () => {
      const guard = new DuplicateGuard();
      const webhooks = make({ dedupe: guard });
      const { body, headers } = delivery();
      await webhooks.handle({ body: `${body} `, headers });
      expect(await guard.claim(messageEvent().id as string)).toBe(true);
    });

    it('answers 500 when the store fails and the guard fails closed', async () => {
      const store = { claim: () => Promise.reject(new Error('down')), release: async () => {} };
      const webhooks = make({ dedupe: new DuplicateGuard(store, { failOpen: false }) });
      const response = await webhooks.handle(delivery());
      expect(response.status).toBe(500);
      expect(JSON.parse(response.body).error.reason).toBe('duplicate_store_failed');
    });
  });

  it('verify() uses the configured options', async () => {
    const { body, headers } = delivery();
    await expect(make().verify(body, headers)).resolves.toEqual(messageEvent());
    const signature = referenceHeader(['x'], NOW_S, body);
    await expect(make().verify(body, { 'x-service-signature': signature })).rejects.toMatchObject({
      reason: 'no_matching_signature',
    });
  });
});
