import {
  HEADER_NAMES,
  type ParsedSignatureHeader,
  parseSignatureHeader,
  verify,
  verifySignature,
  type WebhookEvent,
  WebhookVerificationError,
} from '@svc-kit/webhooks';
import type { CapturedHeaders } from './headers-file';

export interface Delivery {
  readonly body: Uint8Array;
  readonly headers: CapturedHeaders;
}

export interface CheckSettings {
  readonly secrets: readonly string[];
  readonly toleranceSeconds: number;
  /** The current time in milliseconds, real or given with --now. */
  readonly nowMs: number;
}

/** Which secret matched which `v1` value (1-based, as shown to people). */
export interface SecretMatch {
  readonly secret: number;
  readonly signature: number;
}

/** Facts gathered about a delivery, whatever the verdict, to explain it. */
export interface Diagnosis {
  readonly event?: WebhookEvent;
  readonly error?: WebhookVerificationError;
  readonly header?: ParsedSignatureHeader;
  /** Seconds between the signature time and now; positive when the signature is in the past. */
  readonly ageSeconds?: number;
  readonly match?: SecretMatch;
  /** Observations that point at a likely cause. */
  readonly hints: readonly string[];
}

function signatureValue(headers: CapturedHeaders): string | undefined {
  const value = headers[HEADER_NAMES.signature];
  return typeof value === 'string' ? value : undefined;
}

/** True when `signatureHeader` verifies `body` under `secret`, with the clock set to the signature's own time. */
function signatureMatches(
  body: Uint8Array,
  signatureHeader: string,
  secret: string,
  timestamp: string,
): boolean {
  try {
    verifySignature(body, signatureHeader, { secret, now: () => Number(timestamp) * 1000 });
    return true;
  } catch {
    return false;
  }
}

function findMatch(body: Uint8Array, header: ParsedSignatureHeader, secrets: readonly string[]) {
  for (const [secretIndex, secret] of secrets.entries()) {
    for (const [signatureIndex, signature] of header.signatures.entries()) {
      if (signatureMatches(body, `t=${header.timestamp},v1=${signature}`, secret, header.timestamp)) {
        return { secret: secretIndex + 1, signature: signatureIndex + 1 };
      }
    }
  }
  return undefined;
}

/** Variants of a body that commonly differ from what was signed, tried only to explain a mismatch. */
function bodyVariants(body: Uint8Array): { description: string; bytes: Uint8Array }[] {
  const variants: { description: string; bytes: Uint8Array }[] = [];
  const text = Buffer.from(body).toString('utf8');
  const withoutNewline = text.replace(/\r?\n$/, '');
  if (withoutNewline !== text) {
    variants.push({
      description:
        'The body verifies once its final newline is removed: the file gained a newline when it was saved ' +
        '(editors and echo add one). Save the body without it, e.g. with printf or curl --output.',
      bytes: Buffer.from(withoutNewline),
    });
  }
  try {
    const compact = JSON.stringify(JSON.parse(text));
    if (compact !== text && compact !== withoutNewline) {
      variants.push({
        description:
          'The body verifies in compact form: the captured file was re-formatted (pretty-printed by a log ' +
          'viewer or an editor). Capture the raw bytes instead; the receiver must verify those.',
        bytes: Buffer.from(compact),
      });
    }
  } catch {
    // Not JSON: no compact form to try.
  }
  return variants;
}

function explainMismatch(
  delivery: Delivery,
  header: ParsedSignatureHeader,
  settings: CheckSettings,
): string[] {
  for (const variant of bodyVariants(delivery.body)) {
    if (findMatch(variant.bytes, header, settings.secrets) !== undefined) return [variant.description];
  }
  const hints: string[] = [];
  const wellFormed = header.signatures.filter((signature) => /^[0-9a-fA-F]{64}$/.test(signature)).length;
  if (wellFormed < header.signatures.length) {
    hints.push(
      `${header.signatures.length - wellFormed} of the ${header.signatures.length} v1 values are not 64 hex ` +
        'digits: the header was cut or altered after it was sent.',
    );
  }
  if (header.signatures.length === 2 && settings.secrets.length === 1) {
    hints.push(
      'The header carries two v1 values: the endpoint is in a secret rotation; try the other secret too.',
    );
  }
  return hints;
}

/** Verifies the delivery as a receiver would, then gathers the facts that explain the outcome. */
export function diagnose(delivery: Delivery, settings: CheckSettings): Diagnosis {
  const options = {
    secret: settings.secrets,
    toleranceSeconds: settings.toleranceSeconds,
    now: () => settings.nowMs,
  };
  let event: WebhookEvent | undefined;
  let error: WebhookVerificationError | undefined;
  try {
    event = verify(delivery.body, delivery.headers, options);
  } catch (caught) {
    if (!(caught instanceof WebhookVerificationError)) throw caught;
    error = caught;
  }

  const value = signatureValue(delivery.headers);
  let header: ParsedSignatureHeader | undefined;
  try {
    header = value === undefined ? undefined : parseSignatureHeader(value);
  } catch {
    header = undefined;
  }
  if (header === undefined) return { ...(event && { event }), ...(error && { error }), hints: [] };

  const ageSeconds = Math.floor(settings.nowMs / 1000) - Number(header.timestamp);
  const match = findMatch(delivery.body, header, settings.secrets);
  const hints =
    error?.reason === 'no_matching_signature'
      ? explainMismatch(delivery, header, settings)
      : ([] as string[]);
  return {
    ...(event && { event }),
    ...(error && { error }),
    header,
    ageSeconds,
    ...(match && { match }),
    hints,
  };
}
