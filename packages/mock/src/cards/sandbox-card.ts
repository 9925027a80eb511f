import { FINGERPRINT_PATTERN } from '@svc-kit/contract';
import { sandboxFingerprint } from './fingerprint.js';

/** Every card the mock accepts starts with this; anything else is refused by requestContact. */
export const SANDBOX_CARD_PREFIX = 'svc-card-sandbox.';

export interface SandboxCardInput {
  display_name: string;
  /** The party's address; shown as the contact's `endpoint`. */
  endpoint: string;
  /** `sha256:` and 64 hex digits; derived from `endpoint` when left out. */
  fingerprint?: string;
  /** The party accepts at once: requestContact answers `active` instead of `pending`. */
  auto_accept?: boolean;
}

export interface SandboxCard {
  display_name: string;
  endpoint: string;
  fingerprint: string;
  auto_accept: boolean;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Why a card payload is unusable, or `undefined` when it is a valid card. */
function checkCard(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the card is not an object';
  const card = value as Record<string, unknown>;
  if (typeof card.display_name !== 'string' || card.display_name.length === 0) {
    return 'display_name must be a non-empty string';
  }
  if (typeof card.endpoint !== 'string' || card.endpoint.length === 0)
    return 'endpoint must be a non-empty string';
  if (typeof card.fingerprint !== 'string' || !FINGERPRINT_PATTERN.test(card.fingerprint)) {
    return 'fingerprint must be sha256: followed by 64 lowercase hex digits';
  }
  if (typeof card.auto_accept !== 'boolean') return 'auto_accept must be a boolean';
  return undefined;
}

/**
 * A contact card the sandbox's requestContact accepts. The service's real, signed card format is not
 * modelled yet; these cards are plain `svc-card-sandbox.` + base64url(JSON) and carry no signature.
 * Throws a `TypeError` on an unusable input.
 */
export function createSandboxCard(input: SandboxCardInput): string {
  const card: SandboxCard = {
    display_name: input.display_name,
    endpoint: input.endpoint,
    fingerprint: input.fingerprint ?? sandboxFingerprint(input.endpoint),
    auto_accept: input.auto_accept ?? false,
  };
  const problem = checkCard(card);
  if (problem !== undefined) throw new TypeError(`createSandboxCard: ${problem}`);
  return SANDBOX_CARD_PREFIX + toBase64Url(JSON.stringify(card));
}

/** Reads a card made by `createSandboxCard`; `undefined` for anything else. */
export function parseSandboxCard(text: string): SandboxCard | undefined {
  if (!text.startsWith(SANDBOX_CARD_PREFIX)) return undefined;
  const json = fromBase64Url(text.slice(SANDBOX_CARD_PREFIX.length));
  if (json === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (checkCard(value) !== undefined) return undefined;
  const card = value as SandboxCard;
  return {
    display_name: card.display_name,
    endpoint: card.endpoint,
    fingerprint: card.fingerprint,
    auto_accept: card.auto_accept,
  };
}
