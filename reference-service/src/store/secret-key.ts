import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from './private-dir.js';

export interface AtRestKey {
  key: Buffer;
  /** Where it came from, for messages: `SVC_SECRET_KEY` or the key file's path. */
  source: string;
  /** The key file this call created, if it did. */
  generatedFile: string | undefined;
}

/**
 * The at-rest key: `SVC_SECRET_KEY` (64 hex characters or base64 of 32 bytes) when set, which every instance
 * sharing one PostgreSQL database must use; otherwise a key generated once into `<dataDir>/secret.key` (mode
 * 0600), which suits a single machine.
 */
export function loadSecretKey(envValue: string | undefined, dataDir: string): AtRestKey {
  if (envValue !== undefined && envValue !== '') {
    const key = /^[0-9a-fA-F]{64}$/.test(envValue)
      ? Buffer.from(envValue, 'hex')
      : Buffer.from(envValue, 'base64');
    if (key.length !== 32) throw new Error('SVC_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
    return { key, source: 'SVC_SECRET_KEY', generatedFile: undefined };
  }
  const path = join(dataDir, 'secret.key');
  try {
    return { key: decodeKeyFile(readFileSync(path, 'utf8'), path), source: path, generatedFile: undefined };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  ensurePrivateDir(dataDir);
  let generatedFile: string | undefined = path;
  try {
    // 'wx': if another instance on this machine wrote the file first, read theirs instead of overwriting.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    generatedFile = undefined;
  }
  return { key: decodeKeyFile(readFileSync(path, 'utf8'), path), source: path, generatedFile };
}

function decodeKeyFile(text: string, path: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${path} does not hold a 32-byte hex key`);
  return Buffer.from(hex, 'hex');
}
