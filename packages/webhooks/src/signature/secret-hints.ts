/**
 * Hints about secrets that look mis-pasted. The key is always the secret's text as given (no trimming, no
 * decoding), so these only explain a failure; they never change what is accepted. Hints name a secret by
 * its position, never by its content.
 */
export function describeSuspiciousSecrets(secrets: readonly string[]): string[] {
  const hints: string[] = [];
  secrets.forEach((secret, index) => {
    const which = secrets.length === 1 ? 'The secret' : `Secret #${index + 1}`;
    if (secret.trim() !== secret) {
      hints.push(
        `${which} has leading or trailing whitespace (a newline from a file or env var?); remove it.`,
      );
    }
    const trimmed = secret.trim();
    const first = trimmed[0];
    const last = trimmed[trimmed.length - 1];
    if (trimmed.length >= 2 && first === last && (first === '"' || first === "'" || first === '`')) {
      hints.push(`${which} is wrapped in quotes; the quotes are not part of the secret.`);
    }
  });
  return hints;
}
