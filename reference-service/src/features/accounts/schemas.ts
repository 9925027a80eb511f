import { PERMISSIONS } from '@svc-kit/contract';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from './password-policy.js';

/** The bodies of the account routes; the password policy itself is checked in words (password-policy.ts). */

const email = z.string().min(3).max(320);
const password = z
  .string()
  .min(1)
  .max(PASSWORD_MAX_LENGTH * 4);

export const signUpBody = z.strictObject({
  email,
  password,
  workspace_name: z
    .string()
    .max(64)
    // Controls, and format characters such as bidi overrides that would show the name reversed.
    .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'no control or invisible formatting characters')
    .optional(),
});

export const confirmMfaBody = z.strictObject({
  code: z.string().regex(/^[0-9]{6}$/, 'expected a 6-digit code'),
});

export const inviteBody = z.strictObject({
  email,
  permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length * 2),
});

export const acceptInviteBody = z.strictObject({
  token: z.string().min(1).max(128),
  password,
});

/** A member's or a key's id in the path. */
export const idPath = z.strictObject({ id: z.string().min(1).max(64) });

export const mintKeyBody = z.strictObject({
  name: z.string().min(1).max(64),
  scopes: z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length),
});

export const workspacePatchBody = z.strictObject({ webhooks_enabled: z.boolean() });

export const changePasswordBody = z.strictObject({ current_password: password, new_password: password });
