import { readFileSync } from 'node:fs';
import path from 'node:path';
import { docsDir } from '../support/paths';

type Body = { utf8: string } | { base64: string } | { repeat: string; times: number };
type Outcome = { valid: true } | { valid: false; reason: string };

interface SignatureCase {
  name: string;
  secrets: string[];
  signature_header: string | null;
  body: Body;
  now_ms: number;
  tolerance_seconds: number;
  expected: Outcome;
}

interface PayloadCase {
  name: string;
  secrets: string[];
  headers: Record<string, string>;
  body: Body;
  now_ms: number;
  tolerance_seconds: number;
  signed_with: unknown;
}

/** One check of the signature and the timestamp, as the recipes make it. */
export interface VectorCase {
  name: string;
  header: string | null;
  body: Buffer;
  secrets: string[];
  nowSeconds: number;
  toleranceSeconds: number;
  /** `valid` or the reason code. */
  expected: string;
}

const vectorsDir = path.resolve(docsDir, '..', 'test-vectors');

function read<T>(file: string): T[] {
  return (JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8')) as { cases: T[] }).cases;
}

function bytes(body: Body): Buffer {
  if ('utf8' in body) return Buffer.from(body.utf8, 'utf8');
  if ('base64' in body) return Buffer.from(body.base64, 'base64');
  return Buffer.from(body.repeat.repeat(body.times), 'utf8');
}

/**
 * Every case of both files. The recipes check the signature and the clock; the payload cases are all
 * correctly signed and on time (the vectors' README says so, and `signed_with` is asserted below), so their
 * expected outcome at this level is `valid`: what fails them is the JSON, which the recipes leave to the
 * reader's JSON library.
 */
export function vectorCases(): VectorCase[] {
  const signature = read<SignatureCase>('signature-cases.json').map((vector) => ({
    name: vector.name,
    header: vector.signature_header,
    body: bytes(vector.body),
    secrets: vector.secrets,
    nowSeconds: Math.floor(vector.now_ms / 1000),
    toleranceSeconds: vector.tolerance_seconds,
    expected: vector.expected.valid ? 'valid' : vector.expected.reason,
  }));
  const payload = read<PayloadCase>('payload-cases.json').map((vector) => {
    if (vector.signed_with === null) throw new Error(`payload case ${vector.name} is not signed`);
    return {
      name: `payload/${vector.name}`,
      header: vector.headers['x-service-signature'] ?? null,
      body: bytes(vector.body),
      secrets: vector.secrets,
      nowSeconds: Math.floor(vector.now_ms / 1000),
      toleranceSeconds: vector.tolerance_seconds,
      expected: 'valid',
    };
  });
  return [...signature, ...payload];
}
