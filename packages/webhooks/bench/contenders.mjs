// Everything measured. Each contender verifies the same valid delivery and throws if it does not
// accept it, so a benchmark can never time a fast failure path by mistake.
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as ours from '@svc-kit/webhooks';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import * as oursWeb from '../dist/index.web.js';
import { SECRET, STANDARD_SECRET } from './deliveries.mjs';

const TOLERANCE_SECONDS = 300;

/**
 * The code an integrator writes by hand from the spec: split the header, HMAC `${t}.${body}`, compare
 * with timingSafeEqual, check the age.
 * @param {string} body
 * @param {string} header
 * @param {string} secret
 * @param {number} nowMs
 */
function rawVerifyString(body, header, secret, nowMs) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=')));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const received = Buffer.from(parts.v1, 'hex');
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return false;
  return Math.abs(nowMs / 1000 - Number(parts.t)) <= TOLERANCE_SECONDS;
}

/** The same, fed the raw Buffer in two updates (no string copy of the body). */
function rawVerifyBuffer(body, header, secret, nowMs) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=')));
  const expected = createHmac('sha256', secret).update(`${parts.t}.`).update(body).digest();
  const received = Buffer.from(parts.v1, 'hex');
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return false;
  return Math.abs(nowMs / 1000 - Number(parts.t)) <= TOLERANCE_SECONDS;
}

/** @param {boolean} ok */
function mustAccept(ok) {
  if (!ok) throw new Error('the contender refused a valid delivery');
}

/**
 * @typedef {object} Contender
 * @property {string} id stable key used for ratios and targets
 * @property {string} label
 * @property {(d: ReturnType<typeof import('./deliveries.mjs').delivery>) => () => unknown} make
 */

/**
 * @param {number} nowMs fixed receiver clock, inside the tolerance
 * @returns {Contender[]}
 */
export function contenders(nowMs) {
  const options = { secret: SECRET, now: () => nowMs };
  const stripe = new Stripe('sk_test_bench_not_a_real_key');
  const standard = new Webhook(STANDARD_SECRET);
  return [
    {
      // Not a verifier: the HMAC over the bytes and nothing else. No verifier can beat it, so it shows how
      // much of each figure is SHA-256 itself and bounds every ratio.
      id: 'hmac-floor',
      label: 'floor: HMAC-SHA256 of t and the body only (not a verifier)',
      make: (d) => {
        const t = d.signature.slice(2, d.signature.indexOf(','));
        return () => createHmac('sha256', SECRET).update(`${t}.`).update(d.body).digest();
      },
    },
    {
      // The baseline: the literal hand-written code on the body exactly as a raw-body middleware hands it
      // over (a Buffer), the same input ours gets. `${t}.${body}` decodes the Buffer and re-encodes it.
      id: 'raw-received',
      label: 'raw node:crypto t.body string, body as received (Buffer): baseline',
      make: (d) => () => mustAccept(rawVerifyString(d.body, d.signature, SECRET, nowMs)),
    },
    {
      // The same code handed a string decoded beforehand, outside the timed call: its cheapest case.
      id: 'raw-string',
      label: 'raw node:crypto t.body string, body already a string',
      make: (d) => () => mustAccept(rawVerifyString(d.text, d.signature, SECRET, nowMs)),
    },
    {
      id: 'raw-buffer',
      label: 'raw node:crypto, body as Buffer',
      make: (d) => () => mustAccept(rawVerifyBuffer(d.body, d.signature, SECRET, nowMs)),
    },
    {
      id: 'ours-sync-buffer',
      label: 'ours verifySignature, Buffer',
      make: (d) => () => ours.verifySignature(d.body, d.signature, options),
    },
    {
      id: 'ours-sync-string',
      label: 'ours verifySignature, string',
      make: (d) => () => ours.verifySignature(d.text, d.signature, options),
    },
    {
      id: 'ours-verify',
      label: 'ours verify (+ JSON + schema), Buffer',
      make: (d) => () => ours.verify(d.body, d.headers, options),
    },
    {
      id: 'ours-async-web',
      label: 'ours verifySignatureAsync (web build, WebCrypto), Buffer',
      make: (d) => () => oursWeb.verifySignatureAsync(d.body, d.signature, options),
    },
    {
      id: 'ours-sync-web',
      label: 'ours verifySignature (web build, pure-JS SHA-256), Buffer',
      make: (d) => () => oursWeb.verifySignature(d.body, d.signature, options),
    },
    {
      id: 'stripe-buffer',
      label: 'stripe-node verifyHeader, Buffer',
      make: (d) => () =>
        stripe.webhooks.signature.verifyHeader(
          d.body,
          d.signature,
          SECRET,
          TOLERANCE_SECONDS,
          undefined,
          nowMs,
        ),
    },
    {
      id: 'stripe-string',
      label: 'stripe-node verifyHeader, string',
      make: (d) => () =>
        stripe.webhooks.signature.verifyHeader(
          d.text,
          d.signature,
          SECRET,
          TOLERANCE_SECONDS,
          undefined,
          nowMs,
        ),
    },
    {
      id: 'standard-parse',
      label: 'standardwebhooks verify (parses JSON), Buffer',
      make: (d) => () => standard.verify(d.body, d.standardHeaders),
    },
    {
      id: 'standard-no-parse',
      label: 'standardwebhooks verify, jsonParse: false, Buffer',
      make: (d) => () => standard.verify(d.body, d.standardHeaders, { jsonParse: false }),
    },
  ];
}
