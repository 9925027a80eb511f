import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts secrets the service must read back (webhook signing secrets, TOTP seeds) with AES-256-GCM. The
 * record id is bound as additional data, so a ciphertext copied onto another row does not decrypt. Stored
 * form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  seal(plaintext: string, boundTo: string): string;
  open(sealed: string, boundTo: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  return {
    seal(plaintext, boundTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, boundTo) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error('not a sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
