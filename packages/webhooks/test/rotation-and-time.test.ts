import { describe, expect, it } from 'vitest';
import {
  BUILDS,
  baseOptions,
  delivery,
  messageEvent,
  NOW_MS,
  NOW_S,
  OLD_SECRET,
  outcome,
  referenceV1,
  SECRET,
} from './support/fixtures';

describe.each(BUILDS)('$name: secret rotation', (build) => {
  const event = messageEvent();
  const body = JSON.stringify(event);
  const v1New = `v1=${referenceV1(SECRET, NOW_S, body)}`;
  const v1Old = `v1=${referenceV1(OLD_SECRET, NOW_S, body)}`;
  const header = (...v1: string[]) => ({ 'x-service-signature': [`t=${NOW_S}`, ...v1].join(',') });

  it.each([
    ['new then old (the service order)', [v1New, v1Old]],
    ['old then new', [v1Old, v1New]],
  ])('accepts two v1 values, %s, with either secret alone or both', async (_, v1s) => {
    for (const secret of [SECRET, OLD_SECRET, [SECRET, OLD_SECRET], [OLD_SECRET, SECRET]]) {
      expect(await outcome(build, body, header(...v1s), { ...baseOptions, secret })).toBe('ok');
    }
  });

  it('accepts one v1 value under a list of secrets, whichever position matches', async () => {
    expect(await outcome(build, body, header(v1Old), { ...baseOptions, secret: [SECRET, OLD_SECRET] })).toBe(
      'ok',
    );
    expect(await outcome(build, body, header(v1New), { ...baseOptions, secret: [SECRET, OLD_SECRET] })).toBe(
      'ok',
    );
  });

  it('refuses once the old secret is dropped and only the old signature is sent', async () => {
    expect(await outcome(build, body, header(v1Old), { ...baseOptions, secret: SECRET })).toBe(
      'no_matching_signature',
    );
  });

  it('does not let a v1 for one secret match under another', async () => {
    const wrong = { ...baseOptions, secret: ['whsec_a', 'whsec_b'] };
    expect(await outcome(build, body, header(v1New, v1Old), wrong)).toBe('no_matching_signature');
  });
});

describe.each(BUILDS)('$name: tolerance', (build) => {
  const at = (t: number) => delivery(messageEvent(), { t });

  it.each([
    [-300, 'ok'],
    [300, 'ok'],
    [-301, 'timestamp_too_old'],
    [301, 'timestamp_too_new'],
    [0, 'ok'],
  ])('with the default 300 s, t = now %+d s gives %s', async (offset, expected) => {
    const { body, headers } = at(NOW_S + offset);
    expect(await outcome(build, body, headers, baseOptions)).toBe(expected);
  });

  it('uses the current whole second: 300 s and 999 ms late is still within 300 s', async () => {
    const { body, headers } = at(NOW_S - 300);
    expect(await outcome(build, body, headers, { ...baseOptions, now: () => NOW_MS + 999 })).toBe('ok');
    expect(await outcome(build, body, headers, { ...baseOptions, now: () => NOW_MS + 1000 })).toBe(
      'timestamp_too_old',
    );
  });

  it('honours a custom tolerance in both directions', async () => {
    const options = { ...baseOptions, toleranceSeconds: 5 };
    const check = (offset: number) => {
      const { body, headers } = at(NOW_S + offset);
      return outcome(build, body, headers, options);
    };
    expect(await check(-5)).toBe('ok');
    expect(await check(-6)).toBe('timestamp_too_old');
    expect(await check(5)).toBe('ok');
    expect(await check(6)).toBe('timestamp_too_new');
  });

  it('accepts a fractional tolerance and a very large one', async () => {
    const { body, headers } = at(NOW_S - 86_400);
    expect(await outcome(build, body, headers, { ...baseOptions, toleranceSeconds: 86_400 })).toBe('ok');
    const late = at(NOW_S - 1);
    expect(await outcome(build, late.body, late.headers, { ...baseOptions, toleranceSeconds: 0.5 })).toBe(
      'timestamp_too_old',
    );
  });

  it('reads the injected clock on every call', async () => {
    let now = NOW_MS;
    const options = { ...baseOptions, now: () => now };
    const { body, headers } = at(NOW_S);
    expect(await outcome(build, body, headers, options)).toBe('ok');
    now += 301_000;
    expect(await outcome(build, body, headers, options)).toBe('timestamp_too_old');
    now = NOW_MS - 301_000;
    expect(await outcome(build, body, headers, options)).toBe('timestamp_too_new');
  });

  it('uses Date.now when no clock is given', async () => {
    const t = Math.floor(Date.now() / 1000);
    const { body, headers } = at(t);
    expect(await outcome(build, body, headers, { secret: SECRET })).toBe('ok');
  });

  it('checks the signature before the time: a forged old delivery is a signature failure', async () => {
    const { body, headers } = delivery(messageEvent(), { t: NOW_S - 3600, secrets: ['forger'] });
    expect(await outcome(build, body, headers, baseOptions)).toBe('no_matching_signature');
  });

  it('hints at a clock given in seconds instead of milliseconds', async () => {
    const { body, headers } = at(NOW_S);
    const result = await build.safe(body, headers, { ...baseOptions, now: () => NOW_S });
    expect(result.ok || result.error.message).toMatch(/seconds instead of milliseconds/);
  });
});
