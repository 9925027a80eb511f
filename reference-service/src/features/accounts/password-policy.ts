/**
 * The password policy of the portal's accounts, pure and without imports: the service applies it at
 * sign-up, on joining by invite and on a password change, and the portal states the same rules beside
 * the field and checks them as the person types, before the service refuses.
 */

export const PASSWORD_MIN_LENGTH = 12;
/** scrypt reads any length, but nobody types more; a cap keeps a 1 MiB "password" from being hashed. */
export const PASSWORD_MAX_LENGTH = 256;
/** Fewer different characters than this (`aaaaaaaaaaaa`, `abababababab`) is refused. */
export const PASSWORD_MIN_DISTINCT = 4;

/** Why a password is refused, in words for the person; `undefined` when it is acceptable. */
export function passwordProblem(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `the password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `the password may have at most ${PASSWORD_MAX_LENGTH} characters`;
  // A lone surrogate becomes U+FFFD when hashed: twelve different ones would all be one password.
  if (/\p{Cs}/u.test(password)) return 'the password contains characters that are not valid text';
  if (new Set(password).size < PASSWORD_MIN_DISTINCT)
    return 'the password repeats too few different characters';
  const lowered = password.toLowerCase();
  const local = email.split('@')[0] ?? email;
  // A short local part ("a@b.co") would forbid every password holding its letter: only the whole address then.
  // No address yet (the portal's invite form, before the service names it): nothing to compare.
  if (email !== '' && (lowered.includes(email) || (local.length >= 4 && lowered.includes(local))))
    return 'the password must not contain the e-mail address';
  return undefined;
}

/** The rules in words, in the order `passwordProblem` checks them (shown beside every new-password field). */
export const PASSWORD_RULES: readonly string[] = [
  `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
  `at least ${PASSWORD_MIN_DISTINCT} different characters`,
  'not containing your e-mail address',
];
