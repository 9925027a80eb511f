import * as nodeBuild from '@svc-kit/webhooks';
import * as webBuild from '@svc-kit/webhooks/web';
import { describe, expect, it } from 'vitest';
import { clock, messageEvent, NOW_S, OLD_SECRET, referenceV1, SECRET } from './support/fixtures';

const SIGNERS = [
  [
    'node sync',
    async (body: nodeBuild.RawBody, options: nodeBuild.SignOptions) => nodeBuild.sign(body, options),
  ],
  ['node async', nodeBuild.signAsync],
  ['web', webBuild.signAsync],
] as const;

describe.each(SIGNERS)('sign (%s)', (_, sign) => {
  const body = JSON.stringify(messageEvent());

  it('produces t and the hex HMAC of <t>.<body>', async () => {
    expect(await sign(body, { secret: SECRET, timestamp: NOW_S })).toBe(
      `t=${NOW_S},v1=${referenceV1(SECRET, NOW_S, body)}`,
    );
  });

  it('gives one v1 per secret, in the order given', async () => {
    expect(await sign(body, { secret: [SECRET, OLD_SECRET], timestamp: NOW_S })).toBe(
      `t=${NOW_S},v1=${referenceV1(SECRET, NOW_S, body)},v1=${referenceV1(OLD_SECRET, NOW_S, body)}`,
    );
  });

  it('defaults t to the current second', async () => {
    const before = Math.floor(Date.now() / 1000);
    const header = await sign(body, { secret: SECRET });
    const t = Number(/^t=(\d+),/.exec(header)?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it.each([
    [{ secret: SECRET, timestamp: NOW_S * 1000 + 0.5 }, 'invalid_options'],
    [{ secret: SECRET, timestamp: -1 }, 'invalid_options'],
    [{ secret: SECRET, timestamp: 1e16 }, 'invalid_options'],
    [{ secret: '' }, 'invalid_secret'],
  ])('refuses %j with %s', async (options, reason) => {
    await expect(sign(body, options)).rejects.toMatchObject({ reason });
  });

  it('refuses a parsed body', async () => {
    await expect(sign(JSON.parse(body) as never, { secret: SECRET })).rejects.toMatchObject({
      reason: 'body_was_parsed',
    });
  });
});

describe.each([
  ['node', nodeBuild],
  ['web', webBuild],
] as const)('createTestHeaders (%s build)', (_, build) => {
  it('returns the four headers, which the receiver accepts', async () => {
    const body = JSON.stringify(messageEvent());
    const headers = await build.createTestHeaders(body, { secret: SECRET, timestamp: NOW_S });
    expect(Object.keys(headers).sort()).toEqual(Object.values(nodeBuild.HEADER_NAMES).sort());
    expect(headers['x-service-event-id']).toBe(messageEvent().id);
    expect(headers['x-service-event-type']).toBe('message.received');
    expect(headers['x-service-delivery']).toMatch(/^dlv_[0-9a-f-]{36}$/);
    await expect(build.verifyAsync(body, headers, { secret: SECRET, now: clock })).resolves.toEqual(
      messageEvent(),
    );
  });

  it('takes explicit ids (e.g. to test a mismatch) and bodies that are not JSON', async () => {
    const headers = await build.createTestHeaders('not json', {
      secret: SECRET,
      eventId: 'evt_x',
      eventType: 'contact.updated',
      deliveryId: 'dlv_fixed',
    });
    expect(headers).toMatchObject({
      'x-service-event-id': 'evt_x',
      'x-service-event-type': 'contact.updated',
      'x-service-delivery': 'dlv_fixed',
    });
  });

  it('says what is missing when the body has no id', async () => {
    await expect(build.createTestHeaders('{}', { secret: SECRET })).rejects.toMatchObject({
      reason: 'invalid_payload',
      message: expect.stringMatching(/options\.eventId/),
    });
  });
});
